// Copies the browser bundles the app serves itself (no CDN at run time) into public/vendor:
// Swagger UI for the interactive API reference at /docs.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const swaggerUi = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const target = path.join(import.meta.dirname, "..", "public", "vendor", "swagger-ui");
fs.mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"]) {
  fs.copyFileSync(path.join(swaggerUi, file), path.join(target, file));
}
