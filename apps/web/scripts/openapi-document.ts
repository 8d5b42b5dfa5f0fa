/**
 * `npm run -s -w @petstore/web openapi`: prints the OpenAPI document the REST app serves at
 * `GET /v1/openapi.json` (with the default configuration) as JSON on stdout, built from the operations'
 * declarations alone: no runtime, no database, no HTTP server. `@petstore/client` generates its types from it
 * (`npm run -w @petstore/client generate`), and its tests fail when the committed types differ from it.
 */
import { loadConfig } from "@petstore/config";
import { openApiDocument } from "../src/server/rest/openapi-document.ts";

process.stdout.write(openApiDocument(loadConfig({ PGLITE_DIR: "memory://", LOG_LEVEL: "silent" })));
