/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document generated from the operations' zod declarations
 * (never hand-written). Needs no key; still rate limited like everything under /v1. Cacheable by anyone for
 * 5 minutes, with an ETag for revalidation; its compressed forms are made once.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { MAX_PET_ID } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { entityTag } from "@petstore/core/entity-tag";
import { cacheableJsonResponse } from "./conditional.ts";
import { precompressed } from "./content-coding.ts";
import type { RestEnv } from "./env.ts";
import { registerSharedComponents } from "./openapi-shared.ts";
import { cancelOrderRoute } from "./operations/cancel-order.ts";
import { completeOrderRoute } from "./operations/complete-order.ts";
import { createOrderRoute } from "./operations/create-order.ts";
import { createPetRoute } from "./operations/create-pet.ts";
import { getInventoryRoute } from "./operations/get-inventory.ts";
import { getMeRoute } from "./operations/get-me.ts";
import { getOrderRoute } from "./operations/get-order.ts";
import { getPetRoute } from "./operations/get-pet.ts";
import { listCategoriesRoute } from "./operations/list-categories.ts";
import { listOrdersRoute } from "./operations/list-orders.ts";
import { listPetsRoute } from "./operations/list-pets.ts";
import { updatePetRoute } from "./operations/update-pet.ts";

/** The operations' declarations, in the order `createRestApp` registers them (the document lists them so). */
const documentedOperations = [
  listPetsRoute,
  createPetRoute,
  getPetRoute,
  updatePetRoute,
  listOrdersRoute,
  createOrderRoute,
  getOrderRoute,
  completeOrderRoute,
  cancelOrderRoute,
  getInventoryRoute,
  listCategoriesRoute,
  getMeRoute,
];

const DESCRIPTION = `Inventory of the animals offered by the pet store.

Every call is authenticated with an API key sent as a bearer token; a key holds one or more of the scopes
\`pets:read\`, \`pets:write\`, \`orders:read\` and \`orders:write\`, and an operation outside them answers 403
\`insufficient_scope\`. Every response with a body is
JSON, and every response carries X-Request-Id, Cache-Control and the rate-limit headers (X-RateLimit-*, RateLimit-Policy, RateLimit). Pages, animals,
orders and the inventory carry an ETag: send it back in If-None-Match to get 304 Not Modified while they are
unchanged (a 304 counts like any request), or an animal's in If-Match to change it only if nobody did since.
The store section: an API client orders an available animal, which is held for it (\`pending\`) until the order
is completed (\`sold\`) or cancelled, or its hold lapses (\`available\` again). Bodies over 1 KiB are compressed (gzip or br) when Accept-Encoding allows it. Browsers
may call the API (CORS, from any origin unless the deployment lists the allowed ones), with the key as a bearer
token; preflight requests are answered 204 and never counted.
Errors use the Error body: \`{"code", "message", "status"}\` (+ \`details\` on validation errors, each naming the
field and saying what it must be).
Unknown paths under /v1 answer 404 \`not_found\`; other methods on a known path 405 \`method_not_allowed\` with
Allow (the response \`#/components/responses/MethodNotAllowed\`).`;

type Server = { url: string; description: string };

/** What the document depends on besides the operations' declarations: the deployment's addresses. */
export type DocumentConfig = Pick<Runtime["config"], "publicBaseUrl" | "servers">;

/** Anyone (browsers, shared caches, tools) may keep the document 5 minutes; it changes only with a deployment. */
export const DOCUMENT_CACHING = "public, max-age=300";

/**
 * The servers of the document: this deployment (`PUBLIC_BASE_URL`) first, so that tools which start on the
 * first server (the /docs page, generated clients) call the deployment that served the document; then
 * production and staging, each listed once.
 */
export function documentServers(config: DocumentConfig): Server[] {
  const here = `${config.publicBaseUrl}/v1`;
  const { production, staging } = config.servers;
  const which = here === production ? " (production)" : here === staging ? " (staging)" : "";
  return [
    { url: here, description: `This server${which}` },
    ...(production === here ? [] : [{ url: production, description: "Production" }]),
    ...(staging === here ? [] : [{ url: staging, description: "Staging" }]),
  ];
}

/**
 * JSON numbers are doubles in JavaScript: int64's maximum (2^63-1, the largest petId) becomes 2^63 and prints
 * as 9223372036854776000. The served text states the maximum exactly.
 */
const INT64_MAXIMUM_AS_DOUBLE = `"maximum":${Number(MAX_PET_ID)}`;
const INT64_MAXIMUM = `"maximum":${MAX_PET_ID}`;

/** The document's top-level fields (everything but paths and components) for a deployment. */
function documentObject(config: DocumentConfig) {
  return {
    openapi: "3.1.0",
    info: { title: "Pet Store API", version: "1.0.0", description: DESCRIPTION },
    servers: documentServers(config),
    tags: [
      { name: "pets", description: "Animals of the inventory" },
      { name: "store", description: "Orders of animals, and the inventory" },
      { name: "categories", description: "Categories animals belong to (an addition to the interface)" },
      { name: "keys", description: "The calling API key and its quota (an addition to the interface)" },
    ],
  };
}

/** The served text of the document `app`'s registry generates for `config`. */
function documentText(app: OpenAPIHono<RestEnv>, config: DocumentConfig): string {
  return JSON.stringify(app.getOpenAPI31Document(documentObject(config))).replaceAll(
    INT64_MAXIMUM_AS_DOUBLE,
    INT64_MAXIMUM,
  );
}

/**
 * The text `GET /v1/openapi.json` serves for a deployment with `config`, from the operations' module-level
 * declarations alone: no runtime, database or handler is involved (the client's types are generated from it).
 * Registers the shared components and the operations in the order `createRestApp` does, so the text is
 * byte-identical to the served one (apps/web's REST tests compare the two).
 */
export function openApiDocument(config: DocumentConfig): string {
  const app = new OpenAPIHono<RestEnv>();
  registerSharedComponents(app);
  for (const { middleware: _middleware, ...route } of documentedOperations) {
    app.openAPIRegistry.registerPath(route);
  }
  return documentText(app, config);
}

/** Serves `app`'s document at /openapi.json (relative to the app's mount point, /v1). */
export function registerOpenApiDocument(app: OpenAPIHono<RestEnv>, rt: Runtime): void {
  // The document is the same for every request: generated, serialised, tagged and compressed once, on the first.
  let document: { text: string; etag: string } | undefined;
  app.get("/openapi.json", (c) => {
    if (!document) {
      const text = documentText(app, rt.config);
      document = { text: precompressed(text), etag: entityTag(text) };
    }
    return cacheableJsonResponse(c, document.text, { etag: document.etag, cacheControl: DOCUMENT_CACHING });
  });
}
