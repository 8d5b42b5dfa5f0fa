/**
 * esbuild plugin for the bundles that run beside node_modules (the server, the dashboard process, the CLI): bare
 * imports are npm packages, left external and loaded from node_modules at run time; `@petstore/*` imports are the
 * workspace's TypeScript source, bundled in.
 */
export const workspaceSourceOnly = {
  name: "workspace-source-only",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith("@petstore/") ? undefined : { path: args.path, external: true },
    );
  },
};
