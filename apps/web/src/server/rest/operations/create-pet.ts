/**
 * POST /v1/pets (createPet): adds an animal (docs/interface.md "POST /pets"; docs/contract.md section 1). Strict NewPet
 * validation, 201 with Location and the animal's ETag, and optional `Idempotency-Key` replay/409/422 through the
 * shared idempotency service.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { Animal, NewPet } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { entityTag } from "@petstore/core/entity-tag";
import type { RestEnv } from "../env.ts";
import { IdempotencyHeaders, runCreation } from "../idempotency.ts";
import { jsonObjectBody } from "../middleware/json-body.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { requireScope } from "../middleware/require-scope.ts";
import { baseErrorCodes, bearerSecurity, errorResponses, taggedResponseHeaders } from "../openapi-shared.ts";
import { respondJson } from "../respond.ts";

export const createPetRoute = createRoute({
  operationId: "createPet",
  method: "post",
  path: "/pets",
  summary: "Add an animal",
  description: "Needs the `pets:write` scope.",
  tags: ["pets"],
  security: bearerSecurity("pets:write"),
  // The scope before the body: a key that may not create learns so whatever it sent.
  middleware: [requireCaller, requireScope("pets:write"), jsonObjectBody] as const,
  request: {
    headers: IdempotencyHeaders,
    body: { required: true, content: { "application/json": { schema: NewPet } } },
  },
  responses: {
    201: {
      description:
        "The animal was created (or, with `Idempotent-Replayed: true`, an earlier creation is replayed).",
      headers: taggedResponseHeaders("Location", "Idempotent-Replayed"),
      content: { "application/json": { schema: Animal } },
    },
    ...errorResponses(
      "invalid_request",
      "validation_failed",
      "payload_too_large",
      "unsupported_media_type",
      "idempotency_key_in_use",
      "idempotency_key_reused",
      "insufficient_scope",
      ...baseErrorCodes,
    ),
  },
});

export function registerCreatePet(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(createPetRoute, async (c) => {
    const input = c.req.valid("json");
    const idempotencyKey = c.req.valid("header")["idempotency-key"];
    const caller = c.get("caller");
    if (!caller) throw new Error("requireCaller did not run");
    const created = async (tx?: Parameters<typeof rt.pets.create>[2]) => {
      const animal = await rt.pets.create(input, undefined, tx);
      return {
        status: 201,
        body: JSON.stringify(animal),
        headers: { Location: `${rt.config.publicBaseUrl}/v1/pets/${animal.id}` },
      };
    };
    const { response, replayed } = await runCreation(
      rt,
      { apiKeyId: caller.keyId, key: idempotencyKey, fingerprinted: input },
      created,
    );
    const headers = {
      ...response.headers, // Location
      // The tag getPet and updatePet give the same animal (updatePet's If-Match).
      ETag: entityTag(response.body),
      ...(replayed && { "Idempotent-Replayed": "true" }),
    };
    // The stored (or just written) JSON text goes out as it is: no parse and re-serialisation.
    return respondJson<Animal, 201>(c, 201, response.body, headers);
  });
}
