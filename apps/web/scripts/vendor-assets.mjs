// Copies browser bundles the app serves itself (no CDN at run time) into public/vendor.
// @scalar/api-reference does not export its standalone bundle, so locate the package folder from its entry.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
let dir = path.dirname(require.resolve("@scalar/api-reference"));
while (!fs.existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
const target = path.join(import.meta.dirname, "..", "public", "vendor");
fs.mkdirSync(target, { recursive: true });
fs.copyFileSync(path.join(dir, "dist/browser/standalone.js"), path.join(target, "scalar-api-reference.js"));
