/**
 * `npm run -w @petstore/web generate:client [-- --check]`: writes the `@petstore/client` types generated from
 * the served OpenAPI document; with `--check`, writes nothing and exits 1 when the committed types are stale.
 */
import fs from "node:fs";
import { SCHEMA_FILE } from "@petstore/client/generate";
import { clientSchemaSource } from "./client-types.ts";

const source = await clientSchemaSource();
const current = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, "utf8") : "";
if (process.argv.includes("--check")) {
  if (current !== source) {
    process.stderr.write(`${SCHEMA_FILE} is stale: run npm run -w @petstore/client generate\n`);
    process.exit(1);
  }
  process.stdout.write("client types are up to date\n");
} else if (current === source) {
  process.stdout.write(`${SCHEMA_FILE} is up to date\n`);
} else {
  fs.writeFileSync(SCHEMA_FILE, source);
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
process.exit(0);
