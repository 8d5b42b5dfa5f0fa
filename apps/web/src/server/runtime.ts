/**
 * The process's runtime as the dashboard's code reaches it: the one process-wide slot of the app
 * (docs/architecture.md "One process, one runtime").
 *
 * server.ts opens the runtime itself and hands it over here (`handOverRuntime`) before Next starts, in one
 * direction: Next's bundle, which holds its own copies of these modules, reads it with `getRuntime()` and never
 * opens a second one (the embedded PGlite database allows one opener per process). The slot is on `globalThis`
 * because that is the only thing the two module graphs share. When no server.ts runs (`next start`, `next dev`
 * on hosts without the custom server), the first caller opens the runtime and keeps it in the same slot, so
 * every route bundle shares it.
 *
 * The slot also says whether server.ts stamps each request with its client address (client-ip.ts), and holds
 * the process's metrics registry (metrics/registry.ts) so that /v1 and /metrics see the same one under Next.
 */
import { getConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";

interface ProcessSlot {
  runtime?: Promise<Runtime>;
  /** True when server.ts serves this process and stamps `x-petstore-client-ip` on every request. */
  customServer: boolean;
  /** The metrics registry once created (null when METRICS_ENABLED is off); typed by metrics/registry.ts. */
  metrics?: unknown;
}

const SLOT = Symbol.for("petstore.process");

/** The process slot, created empty on first use. */
export function processSlot(): ProcessSlot {
  const holder = globalThis as { [SLOT]?: ProcessSlot };
  holder[SLOT] ??= { customServer: false };
  return holder[SLOT];
}

/** server.ts: `runtime` is the process's runtime, and this process stamps client addresses. */
export function handOverRuntime(runtime: Runtime): void {
  processSlot().runtime = Promise.resolve(runtime);
  markCustomServer();
}

/** This process's requests carry server.ts's client-address stamp (server.ts, and test servers that play it). */
export function markCustomServer(): void {
  processSlot().customServer = true;
}

/** The process runtime: the one server.ts handed over, else one opened on first use (and retried on failure). */
export function getRuntime(): Promise<Runtime> {
  const slot = processSlot();
  slot.runtime ??= openRuntime({ config: getConfig() }).catch((error: unknown) => {
    slot.runtime = undefined;
    throw error;
  });
  return slot.runtime;
}

/** True when server.ts serves this process (so `x-petstore-client-ip` is its stamp, never a client's). */
export const isCustomServer = (): boolean => processSlot().customServer;
