/**
 * Next.js start-up hook. Under server.ts (every supported start) it does nothing: server.ts opened the runtime
 * and started up before Next. On hosts without server.ts it opens the runtime and starts up
 * (src/server/bootstrap.ts).
 */
export async function register(): Promise<void> {
  // NEXT_RUNTIME is set by Next itself (not configuration): it keeps the Node-only bootstrap out of the edge bundle.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startUnderNext } = await import("./src/server/bootstrap.ts");
  await startUnderNext();
}
