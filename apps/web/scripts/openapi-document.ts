/**
 * `npm run -s -w @petstore/web openapi`: prints the OpenAPI document the REST app serves at
 * `GET /v1/openapi.json` as JSON on stdout, obtained in-process (the app over an in-memory PGlite runtime; no
 * HTTP server, no services). `@petstore/client` generates its types from it (`npm run -w @petstore/client
 * generate`), and its tests fail when the committed types differ from what this prints.
 * Exits 1 when the app does not answer 200.
 */
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime } from "@petstore/core";
import { migrate } from "@petstore/core/migrate";
import { createRestApp } from "../src/server/rest/app.ts";

const config = loadConfig({ PGLITE_DIR: "memory://", LOG_LEVEL: "silent" });
const rt = await openRuntime({ config, logger: createLogger("silent"), prepare: migrate });
const response = await createRestApp(rt).request("/v1/openapi.json");
const text = await response.text();
await rt.close();
if (response.status !== 200) {
  process.stderr.write(`GET /v1/openapi.json answered ${response.status}: ${text}\n`);
  process.exit(1);
}
process.stdout.write(text);
// The in-memory database leaves timers behind that would keep the process alive a while longer.
process.exit(0);
