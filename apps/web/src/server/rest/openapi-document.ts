/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document generated from the operations' zod declarations
 * (never hand-written). Needs no key; still rate limited like everything under /v1.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Runtime } from "@petstore/core";
import type { RestEnv } from "./env.ts";

const DESCRIPTION = `Inventory of the animals offered by the pet store.

Every call is authenticated with an API key sent as a bearer token. Every response is JSON and carries
X-Request-Id, Cache-Control: no-store and the rate-limit headers (X-RateLimit-*, RateLimit-Policy, RateLimit).
Errors use the Error body: \`{"code", "message", "status"}\` (+ \`details\` on validation errors).
Unknown paths under /v1 answer 404 \`not_found\`; other methods on a known path 405 \`method_not_allowed\` with Allow.`;

/** `{base_url}` of the deployment serving the document, when it is neither production nor staging (e.g. local). */
function thisServer(rt: Runtime): string | undefined {
  const url = `${rt.config.publicBaseUrl}/v1`;
  return url === rt.config.servers.production || url === rt.config.servers.staging ? undefined : url;
}

export function registerOpenApiDocument(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  const here = thisServer(rt);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Pet Store API", version: "1.0.0", description: DESCRIPTION },
    servers: [
      { url: rt.config.servers.production, description: "Production" },
      { url: rt.config.servers.staging, description: "Staging" },
      ...(here ? [{ url: here, description: "This server" }] : []),
    ],
    tags: [
      { name: "pets", description: "Animals of the inventory" },
      { name: "store", description: "Store operations" },
    ],
  });
}
