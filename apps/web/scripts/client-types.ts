/**
 * The OpenAPI document the REST app serves at `GET /v1/openapi.json`, obtained in-process (the app over an
 * in-memory PGlite runtime; no HTTP server, no services), and the `@petstore/client` types generated from it.
 * Used by `npm run -w @petstore/web generate:client` and by the test that fails on stale client types.
 */

import { schemaSourceFrom } from "@petstore/client/generate";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { createRestApp } from "../src/server/rest/app.ts";

/** The served OpenAPI 3.1 document, as JSON. @throws when the app does not answer 200. */
export async function servedOpenApiDocument(): Promise<object> {
  const config = loadConfig({ PGLITE_DIR: "memory://", LOG_LEVEL: "silent" });
  const rt = await openRuntime({ config, logger: createLogger("silent"), prepare: migrate });
  try {
    const response = await createRestApp(rt).request("/v1/openapi.json");
    if (response.status !== 200)
      throw new Error(`GET /v1/openapi.json answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as object;
  } finally {
    await rt.close();
  }
}

/** The source `packages/client/src/generated/v1.ts` should have for the document served now. */
export async function clientSchemaSource(): Promise<string> {
  return schemaSourceFrom(await servedOpenApiDocument());
}
