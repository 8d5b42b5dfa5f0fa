/**
 * Where the REST API's one fetch handler is published for the app's own Node server (issue 7: `/v1` without
 * Next's router). Next's bundle builds the REST app (src/server/rest/handler.ts) and stores its handler in a
 * process-wide slot; `server.ts`, which runs outside that bundle, reads it from there, so both mounts (the Next
 * route handler at app/v1 and server.ts) call the very same function over the very same runtime. This module
 * imports nothing, so that server.ts loads no second copy of the app.
 */

/** `(request) => response` for any URL under /v1 (docs/interface.md). */
export type RestFetch = (request: Request) => Promise<Response>;

const SLOT = Symbol.for("petstore.rest.fetch");
type Holder = { [SLOT]?: RestFetch };

/** Publishes `fetch` unless one is published already; returns the published one. */
export function publishRestFetch(fetch: RestFetch): RestFetch {
  const holder = globalThis as Holder;
  holder[SLOT] ??= fetch;
  return holder[SLOT];
}

/** The published handler, or `undefined` before Next has loaded the REST app. */
export function publishedRestFetch(): RestFetch | undefined {
  return (globalThis as Holder)[SLOT];
}

/** True for the paths the REST app owns: `/v1` and everything under `/v1/` (query string ignored). */
export function isRestPath(url: string | undefined): boolean {
  if (!url?.startsWith("/v1")) return false;
  const c = url.charCodeAt(3);
  return Number.isNaN(c) || c === 47 /* / */ || c === 63 /* ? */;
}
