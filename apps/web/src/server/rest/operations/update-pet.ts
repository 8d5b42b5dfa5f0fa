/**
 * PATCH /v1/pets/{petId} (updatePet; docs/contract.md section 1): a JSON merge patch with an optional `If-Match`
 * (412 when stale); 409 for a status change of a held animal; 200 with the animal and its ETag.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Animal, MAX_PET_ID, PetIdParam, PetPatch } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { entityTag } from "@petstore/core/entity-tag";
import { ifMatch } from "../conditional.ts";
import type { RestEnv } from "../env.ts";
import { mergePatchBody } from "../middleware/json-body.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { requireScope } from "../middleware/require-scope.ts";
import {
  baseErrorCodes,
  bearerSecurity,
  errorResponses,
  ifMatchParameter,
  taggedResponseHeaders,
} from "../openapi-shared.ts";
import { respondJson } from "../respond.ts";

export const updatePetRoute = createRoute({
  operationId: "updatePet",
  method: "patch",
  path: "/pets/{petId}",
  summary: "Change an animal",
  description:
    "A JSON merge patch (RFC 7396) of `name`, `categoryId` and `status`: the fields given change, `status: null` " +
    "removes the status, `{}` changes nothing. Send the ETag the animal was read with in `If-Match` to change it " +
    "only if nobody changed it since (412 otherwise). A status change of an animal held by a placed order is 409 " +
    "`conflict`: complete or cancel the order first. Needs the `pets:write` scope.",
  tags: ["pets"],
  security: bearerSecurity("pets:write"),
  middleware: [requireCaller, requireScope("pets:write"), mergePatchBody] as const,
  parameters: [ifMatchParameter],
  request: {
    params: z.object({
      petId: PetIdParam.meta({
        param: { name: "petId", in: "path" },
        type: "integer",
        format: "int64",
        minimum: 1,
        // A double: the served text states it exactly (openapi-document.ts).
        maximum: Number(MAX_PET_ID),
        description: "Identifier of the animal: decimal without leading zeros, 1 to 9223372036854775807.",
        example: 1,
      }),
    }),
    body: {
      required: true,
      content: {
        "application/merge-patch+json": { schema: PetPatch },
        "application/json": { schema: PetPatch },
      },
    },
  },
  responses: {
    200: {
      description: "The animal after the change, with its new ETag.",
      headers: taggedResponseHeaders(),
      content: { "application/json": { schema: Animal } },
    },
    ...errorResponses(
      "invalid_request",
      "validation_failed",
      "payload_too_large",
      "unsupported_media_type",
      "insufficient_scope",
      "not_found",
      "conflict",
      "precondition_failed",
      ...baseErrorCodes,
    ),
  },
});

export function registerUpdatePet(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(updatePetRoute, async (c) => {
    const condition = ifMatch(c.req.header("if-match"));
    const animal = await rt.pets.update(
      { id: c.req.valid("param").petId, ...c.req.valid("json") },
      undefined,
      condition ? { ifMatch: condition } : {},
    );
    const json = JSON.stringify(animal);
    return respondJson<Animal, 200>(c, 200, json, { ETag: entityTag(json) });
  });
}
