import path from "node:path";
import { defineConfig } from "prisma/config";

// `prisma generate` insists that a schema engine exists; the native one cannot be downloaded here,
// so point it at a stub. Migrations run on the WebAssembly engine (src/migrate).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(import.meta.dirname, "scripts/schema-engine-stub.sh");

export default defineConfig({
  schema: path.join(import.meta.dirname, "../../prisma/schema.prisma"),
  migrations: { path: path.join(import.meta.dirname, "../../prisma/migrations") },
});
