/**
 * GET /v1/pets/{petId} (getPet, deprecated): one animal (docs/interface.md "GET /pets/{petId}"). Every response of the
 * operation carries Deprecation (RFC 9745), Sunset (RFC 8594) and a successor-version Link (RFC 8288);
 * from the sunset instant on (server clock), and during a brownout an admin scheduled before it (docs/contract.md
 * section 4, "Brownouts"; core's brownouts.ts, answered from memory), it answers 410 `gone`.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Animal, DEPRECATED_OPERATIONS, MAX_PET_ID, PetIdParam } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import { cacheableJsonResponse, REVALIDATE } from "../conditional.ts";
import type { RestEnv } from "../env.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { requireScope } from "../middleware/require-scope.ts";
import {
  baseErrorCodes,
  bearerSecurity,
  cacheableResponseHeaders,
  errorResponses,
  ifNoneMatchParameter,
  notModifiedResponse,
  responseHeaders,
} from "../openapi-shared.ts";
import { respondProblem } from "../respond.ts";

const { deprecatedAt: DEPRECATED_AT, sunsetAt: SUNSET_AT, successor } = DEPRECATED_OPERATIONS.getPet;

const lifecycleHeaders = (rt: Pick<Runtime, "config">) => ({
  Deprecation: `@${DEPRECATED_AT.getTime() / 1000}`,
  Sunset: SUNSET_AT.toUTCString(),
  Link: `<${rt.config.publicBaseUrl}${successor}>; rel="successor-version"`,
});

/** Puts the lifecycle headers on every GET response on /pets/{petId}, errors included. */
export const getPetLifecycle = (rt: Pick<Runtime, "config">) => {
  const headers = lifecycleHeaders(rt); // constant: built once, not per request
  return createMiddleware<RestEnv>((c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") c.set("lifecycle", headers);
    return next();
  });
};

/** The answer after the sunset, and during a brownout: the same body. */
const GONE = {
  code: "gone",
  message: "getPet was removed on 2030-12-05; use GET /v1/pets with the status filter.",
} as const;

/**
 * From the sunset instant on, and during a brownout, the operation is removed: 410 `gone` whatever the petId, so
 * this runs before the path is validated (and after `requireCaller`).
 */
const sunsetGate = (rt: Pick<Runtime, "clock" | "brownouts">) =>
  createMiddleware<RestEnv>(async (c, next) => {
    if (rt.clock() >= SUNSET_AT || (await rt.brownouts.active("getPet"))) return respondProblem(GONE, c);
    return next();
  });

const lifecycle = ["Deprecation", "Sunset", "Link"] as const;

export const getPetRoute = createRoute({
  operationId: "getPet",
  method: "get",
  path: "/pets/{petId}",
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated since 2026-01-01 and removed on 2030-12-05 (then 410 `gone`); before that, during brownouts the store announces (`GET /me` lists them for keys that call this operation), it answers as after the removal. Use `GET /pets` with the `status` filter instead. " +
    "Send the animal's ETag back in `If-None-Match` to get 304 while it is unchanged. Needs the `pets:read` scope.",
  deprecated: true,
  tags: ["pets"],
  security: bearerSecurity("pets:read"),
  middleware: [requireCaller, requireScope("pets:read")] as const,
  parameters: [ifNoneMatchParameter],
  request: {
    params: z.object({
      petId: PetIdParam.meta({
        param: { name: "petId", in: "path" },
        // Documented as the interface types it (integer, int64), not as the string zod parses.
        type: "integer",
        format: "int64",
        minimum: 1,
        // A double: the served text states it exactly (openapi-document.ts).
        maximum: Number(MAX_PET_ID),
        description: "Identifier of the animal: decimal without leading zeros, 1 to 9223372036854775807.",
        example: 1,
      }),
    }),
  },
  responses: {
    200: {
      description: "The animal.",
      headers: cacheableResponseHeaders(...lifecycle),
      content: { "application/json": { schema: Animal } },
    },
    304: notModifiedResponse(...lifecycle),
    ...Object.fromEntries(
      Object.entries(
        errorResponses("validation_failed", "insufficient_scope", "not_found", "gone", ...baseErrorCodes),
      ).map(([status, r]) => [status, { ...r, headers: { ...r.headers, ...responseHeaders(...lifecycle) } }]),
    ),
  },
});

export function registerGetPet(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi(
    { ...getPetRoute, middleware: [requireCaller, requireScope("pets:read"), sunsetGate(rt)] as const },
    async (c) => {
      const animal = await rt.pets.get(c.req.valid("param").petId);
      return cacheableJsonResponse<Animal>(c, JSON.stringify(animal), { cacheControl: REVALIDATE });
    },
  );
}
