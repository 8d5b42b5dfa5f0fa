/**
 * GET /v1/pets/{petId} (getPet, deprecated): one animal (docs/interface.md "GET /pets/{petId}"). Every response of the
 * operation carries Deprecation (RFC 9745), Sunset (RFC 8594) and a successor-version Link (RFC 8288);
 * from the sunset instant on (server clock) it answers 410 `gone`.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Animal, AppError, PetIdParam } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";
import { requireCaller } from "../middleware/authenticate.ts";
import { baseErrorCodes, bearerSecurity, errorResponses, responseHeaders } from "../openapi-shared.ts";
import { jsonResponse } from "../problem.ts";

/** 2026-01-01T00:00:00Z, when the deprecation was announced. */
export const DEPRECATED_AT = new Date("2026-01-01T00:00:00Z");
/** 2030-12-05T00:00:00Z, the announced removal. */
export const SUNSET_AT = new Date("2030-12-05T00:00:00Z");

const lifecycleHeaders = (rt: Pick<Runtime, "config">) => ({
  Deprecation: `@${DEPRECATED_AT.getTime() / 1000}`,
  Sunset: SUNSET_AT.toUTCString(),
  Link: `<${rt.config.publicBaseUrl}/v1/pets>; rel="successor-version"`,
});

/** Adds the lifecycle headers to every GET response on /pets/{petId}, errors included. */
export const getPetLifecycle = (rt: Pick<Runtime, "config">) => {
  const headers = lifecycleHeaders(rt); // constant: built once, not per request
  return createMiddleware<RestEnv>(async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") Object.assign(c.get("responseHeaders"), headers);
    await next();
  });
};

/**
 * From the sunset instant on the operation is removed: 410 `gone` whatever the petId, so this runs before
 * the path is validated (and after `requireCaller`).
 */
const sunsetGate = (rt: Pick<Runtime, "clock" | "rateLimiter">) =>
  createMiddleware<RestEnv>(async (_c, next) => {
    if (rt.clock() >= SUNSET_AT) {
      throw new AppError(
        "gone",
        "getPet was removed on 2030-12-05; use GET /v1/pets with the status filter.",
      );
    }
    await next();
  });

const lifecycle = ["Deprecation", "Sunset", "Link"] as const;

export const getPetRoute = createRoute({
  operationId: "getPet",
  method: "get",
  path: "/pets/{petId}",
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated since 2026-01-01 and removed on 2030-12-05 (then 410 `gone`). Use `GET /pets` with the `status` filter instead.",
  deprecated: true,
  tags: ["pets"],
  security: bearerSecurity,
  middleware: [requireCaller] as const,
  request: {
    params: z.object({
      petId: PetIdParam.meta({
        param: { name: "petId", in: "path" },
        // Documented as the interface types it (integer, int64), not as the string zod parses.
        type: "integer",
        format: "int64",
        minimum: 1,
        description: "Identifier of the animal: decimal without leading zeros, 1 to 9223372036854775807.",
        example: 1,
      }),
    }),
  },
  responses: {
    200: {
      description: "The animal.",
      headers: responseHeaders(...lifecycle),
      content: { "application/json": { schema: Animal } },
    },
    ...Object.fromEntries(
      Object.entries(errorResponses("validation_failed", "not_found", "gone", ...baseErrorCodes)).map(
        ([status, r]) => [status, { ...r, headers: { ...r.headers, ...responseHeaders(...lifecycle) } }],
      ),
    ),
  },
});

export function registerGetPet(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  app.openapi({ ...getPetRoute, middleware: [requireCaller, sunsetGate(rt)] as const }, async (c) => {
    const animal = await rt.pets.get(c.req.valid("param").petId);
    return jsonResponse(c, 200, animal);
  });
}
