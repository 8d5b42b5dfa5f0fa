/**
 * Builds server.ts and the dashboard process's entry (src/server/next-child/main.ts, which server.ts starts) into
 * dist/ (`npm run build`, after `next build`): ES module bundles of them, the app's server code and the workspace
 * packages (TypeScript source), with every npm package left external and dynamic imports kept lazy (code
 * splitting, shared code in chunks beside them), so that `npm start` runs plain Node: no TypeScript loader in
 * the serving processes, and an API-only instance never loads Next or PGlite.
 * `--outdir=<dir>` builds elsewhere (a variant for `npm run bench -- --variant=<dir>/server.js`).
 */
import { build } from "esbuild";
import { workspaceSourceOnly } from "./workspace-source-only.mjs";

const outdir = process.argv.find((a) => a.startsWith("--outdir="))?.slice("--outdir=".length) ?? "dist";

await build({
  entryPoints: { server: "server.ts", "dashboard-child": "src/server/next-child/main.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  plugins: [workspaceSourceOnly],
});
