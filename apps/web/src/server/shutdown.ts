/**
 * Clean stop of the process (SIGTERM/SIGINT in server.ts): closes the runtime that Next's bundle opened, which
 * flushes the analytics and usage counts still in memory before the database closes (docs/operations.md).
 * Reaches the runtime through its `globalThis` slot, so server.ts does not load core itself.
 */

/** The `globalThis` slot holding the process runtime (src/server/runtime.ts). */
export const RUNTIME_SLOT = Symbol.for("petstore.runtime");

type Holder = { [RUNTIME_SLOT]?: Promise<{ close(): Promise<void> }> };

/** Closes the process runtime when one was opened; never throws. */
export async function closeProcessRuntime(): Promise<void> {
  const holder = globalThis as Holder;
  const opened = holder[RUNTIME_SLOT];
  delete holder[RUNTIME_SLOT];
  try {
    await (await opened)?.close();
  } catch (error) {
    process.stderr.write(`closing the runtime failed: ${String(error)}\n`);
  }
}
