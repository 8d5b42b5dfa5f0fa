/**
 * Next.js start-up hook: configuration check, first-start seed and banner (src/server/bootstrap), then loads
 * the REST app and the operational endpoints so that they are published for server.ts's direct mount
 * (src/server/rest/mount.ts).
 */
export async function register(): Promise<void> {
  // NEXT_RUNTIME is set by Next itself (not configuration): it keeps the Node-only bootstrap out of the edge bundle.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { bootstrap } = await import("./src/server/bootstrap.ts");
  await bootstrap();
  await import("./src/server/rest/handler.ts");
  await import("./src/server/ops/handler.ts");
}
