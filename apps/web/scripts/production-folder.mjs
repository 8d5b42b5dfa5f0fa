/**
 * Assembles the production folder, apps/web/dist/production/ (`npm run build`, after `next build` and
 * scripts/build-server.mjs; docs/operations.md "The production folder"): everything the server, the dashboard
 * process and the operator command need, so that a copy of the folder runs with Node alone (`node server.js`,
 * `node cli.js db migrate`). Its parts:
 * - Next's standalone output (`output: "standalone"` in next.config.mjs), the app's folder flattened into the
 *   folder's root: `.next/` (server files, plus `.next/static`, which Next leaves out), `public/`, and the
 *   node_modules files Next traced for the dashboard;
 * - the server bundle (dist/*.js) and the CLI (apps/cli/src/main.ts) bundled the same way into `cli.js`, and the
 *   node_modules files both reach, traced with @vercel/nft (the tracer Next uses);
 * - `prisma/` (schema.prisma and migrations/), found beside the bundles (packages/db/src/migrate/files.ts), and a
 *   package.json that makes the bundles ES modules.
 * Usage: `node scripts/production-folder.mjs` in apps/web.
 */
import fs from "node:fs";
import path from "node:path";
import { nodeFileTrace } from "@vercel/nft";
import { build } from "esbuild";
import { workspaceSourceOnly } from "./workspace-source-only.mjs";

const web = path.join(import.meta.dirname, "..");
const root = path.join(web, "..", "..");
const dist = path.join(web, "dist");
const out = path.join(dist, "production");
const standalone = path.join(web, ".next", "standalone");
const copy = (from, to) => fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(
  path.join(out, "package.json"),
  `${JSON.stringify({ name: "petstore-production", private: true, type: "module" }, null, 2)}\n`,
);

// The CLI, one file: npm packages stay external (traced below), the workspace packages' source is bundled.
await build({
  entryPoints: { cli: path.join(root, "apps", "cli", "src", "main.ts") },
  outdir: out,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  plugins: [workspaceSourceOnly],
  // How the command names itself in its usage and messages here.
  define: { PETSTORE_COMMAND: JSON.stringify("node cli.js") },
});
// main.ts's line runs it through tsx in the repository; the bundle is plain JavaScript.
const cli = path.join(out, "cli.js");
fs.writeFileSync(cli, fs.readFileSync(cli, "utf8").replace(/^#!.*\n/, "#!/usr/bin/env node\n"));

// The files the server bundle and the CLI load: the bundle's chunks (dist/ keeps those of earlier builds too)
// and node_modules files. The dashboard process needs only `next` from node_modules, which Next's own trace
// covers: the tracer would take all of Next (its build tools and their optional dependencies) instead.
const entries = [path.join(dist, "server.js"), path.join(dist, "dashboard-child.js"), cli];
const { fileList } = await nodeFileTrace(entries, {
  base: root,
  ignore: (file) => file.startsWith("node_modules/next/"),
});
// Packages whose files are read by a computed path the tracer cannot follow: Prisma's schema engine, whose .wasm
// packages/db/src/migrate/engine.ts reads beside the module it resolves.
const WHOLE_PACKAGES = ["@prisma/schema-engine-wasm"];

// Next's standalone output: the app's folder becomes the root; its node_modules beside it.
// Left out: Next's image optimizer (sharp and its 20 MB of native libraries), as the dashboard has no next/image.
const LEFT_OUT = new Set(["sharp", "@img"]);
fs.cpSync(path.join(standalone, "node_modules"), path.join(out, "node_modules"), {
  recursive: true,
  verbatimSymlinks: true,
  filter: (from) =>
    !LEFT_OUT.has(path.relative(path.join(standalone, "node_modules"), from).split(path.sep)[0]),
});
copy(path.join(standalone, "apps", "web", ".next"), path.join(out, ".next"));
copy(path.join(web, ".next", "static"), path.join(out, ".next", "static"));
copy(path.join(web, "public"), path.join(out, "public"));
relinkExternals(path.join(out, ".next", "node_modules"));

const bundle = path.relative(root, dist);
for (const file of fileList) {
  if (path.dirname(file) === bundle) {
    // The server bundle, with its source maps (Next's own standalone server.js is not used).
    for (const name of [file, `${file}.map`]) {
      if (fs.existsSync(path.join(root, name)))
        fs.copyFileSync(path.join(root, name), path.join(out, path.basename(name)));
    }
    continue;
  }
  const at = file.split(path.sep).lastIndexOf("node_modules");
  if (at < 0) continue;
  const target = path.join(out, ...file.split(path.sep).slice(at));
  if (fs.existsSync(target)) continue;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  copy(path.join(root, file), target);
}
for (const name of WHOLE_PACKAGES) {
  copy(path.join(root, "node_modules", name), path.join(out, "node_modules", name));
}
// The migration runner reads the schema beside the migrations folder.
copy(path.join(root, "prisma", "migrations"), path.join(out, "prisma", "migrations"));
fs.copyFileSync(path.join(root, "prisma", "schema.prisma"), path.join(out, "prisma", "schema.prisma"));

/**
 * Points Next's links to its external packages (`.next/node_modules/<name>-<hash>`, relative links into the
 * repository-root node_modules of the standalone layout) at the folder's node_modules.
 */
function relinkExternals(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) relinkExternals(at);
    if (!entry.isSymbolicLink()) continue;
    const name = fs.readlinkSync(at).split("node_modules/").at(-1);
    fs.rmSync(at);
    fs.symlinkSync(path.relative(dir, path.join(out, "node_modules", name)), at);
  }
}
