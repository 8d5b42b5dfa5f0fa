/**
 * The web process's single runtime (config, logger, database, domain services), opened lazily on first
 * use and shared through `globalThis`, because Next.js may load this module more than once (instrumentation,
 * route handlers) while the embedded PGlite database must be opened exactly once per process.
 */
import { getConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import { RUNTIME_SLOT } from "./shutdown.ts";

const KEY = RUNTIME_SLOT;
type Holder = { [KEY]?: Promise<Runtime> };

/** The process runtime; rejects (and is retried on the next call) when opening fails. */
export function getRuntime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= openRuntime({ config: getConfig() }).catch((error: unknown) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}
