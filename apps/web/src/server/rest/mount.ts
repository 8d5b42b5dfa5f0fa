/**
 * Where the REST API's one fetch handler, and that of the operational endpoints (src/server/ops), are published
 * for the app's own Node server (issue 7: `/v1` without Next's router). Next's bundle builds the REST app
 * (src/server/rest/handler.ts) and stores its handler in a process-wide slot; `server.ts`, which runs outside
 * that bundle, reads it from there, so both mounts (the Next route handler at app/v1 and server.ts) call the
 * very same function over the very same runtime. This module imports nothing, so that server.ts loads no second
 * copy of the app.
 */

/** `(request) => response` for any URL under /v1 (docs/interface.md). */
export type RestFetch = (request: Request) => Promise<Response>;

/**
 * A process-wide slot for one handler: `publish` keeps the first one given and returns it; `published` reads it;
 * `whenPublished` resolves with it once it is published.
 */
function slot(name: string) {
  type Slot = { fetch?: RestFetch; waiters: ((fetch: RestFetch) => void)[] };
  const key = Symbol.for(name);
  const holder = globalThis as { [key: symbol]: Slot | undefined };
  const state = (): Slot => (holder[key] ??= { waiters: [] });
  return {
    publish(fetch: RestFetch): RestFetch {
      const s = state();
      if (!s.fetch) {
        s.fetch = fetch;
        for (const wake of s.waiters.splice(0)) wake(fetch);
      }
      return s.fetch;
    },
    published: (): RestFetch | undefined => holder[key]?.fetch,
    whenPublished(): Promise<RestFetch> {
      const s = state();
      return s.fetch ? Promise.resolve(s.fetch) : new Promise((resolve) => s.waiters.push(resolve));
    },
  };
}

const rest = slot("petstore.rest.fetch");
/** Publishes the REST handler unless one is published already; returns the published one. */
export const publishRestFetch = rest.publish;
/** The published REST handler, or `undefined` before Next has loaded the REST app. */
export const publishedRestFetch = rest.published;
/** Resolves with the REST handler once Next's start-up hook (instrumentation.ts) has published it. */
export const restFetchPublished = rest.whenPublished;

const ops = slot("petstore.ops.fetch");
/** Publishes the operational endpoints' handler (src/server/ops/handler.ts) unless one is published already. */
export const publishOpsFetch = ops.publish;
/** The operational endpoints' handler, or `undefined` before Next has loaded it. */
export const publishedOpsFetch = ops.published;
/** Resolves with the operational endpoints' handler once it is published. */
export const opsFetchPublished = ops.whenPublished;

/** The operational paths server.ts answers without Next's router (src/server/ops/handler.ts). */
export type OpsPath = "/healthz" | "/readyz" | "/metrics";
const OPS_PATHS = new Set<string>(["/healthz", "/readyz", "/metrics"]);

/**
 * True for a GET or HEAD of /healthz, /readyz or /metrics (query string ignored; Node sends no body for HEAD);
 * other methods stay with Next, which answers them 405.
 */
export function isOpsRequest(method: string | undefined, url: string | undefined): boolean {
  if ((method !== "GET" && method !== "HEAD") || !url) return false;
  const q = url.indexOf("?");
  return OPS_PATHS.has(q < 0 ? url : url.slice(0, q));
}

/** True for the paths the REST app owns: `/v1` and everything under `/v1/` (query string ignored). */
export function isRestPath(url: string | undefined): boolean {
  if (!url?.startsWith("/v1")) return false;
  const c = url.charCodeAt(3);
  return Number.isNaN(c) || c === 47 /* / */ || c === 63 /* ? */;
}
