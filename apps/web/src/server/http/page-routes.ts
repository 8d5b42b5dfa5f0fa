/**
 * The route pattern of a dashboard path (`/admin/keys/[id]` for `/admin/keys/42`), for the request log and the
 * HTTP metrics (request-log.ts): read once at start from the Next build's routes manifest
 * (`.next/routes-manifest.json`, which lists every page and route handler with the regular expression Next
 * matches it by), so a new page gets its own label without being listed here.
 */
import fs from "node:fs";
import path from "node:path";

/** The part of Next's `routes-manifest.json` read here. */
export interface RoutesManifest {
  staticRoutes?: readonly { page: string; regex: string }[];
  dynamicRoutes?: readonly { page: string; regex: string }[];
}

/** `(path) => route pattern`, or undefined when no page or route handler has that path. */
export type PageRouteOf = (path: string) => string | undefined;

/** The matcher over `manifest`: static routes by exact path (a trailing `/` ignored), then the dynamic ones in order. */
export function pageRoutes(manifest: RoutesManifest): PageRouteOf {
  const exact = new Map((manifest.staticRoutes ?? []).map((r) => [r.page, r.page]));
  const dynamic = (manifest.dynamicRoutes ?? []).map((r) => ({ page: r.page, regex: new RegExp(r.regex) }));
  return (p) => {
    const trimmed = p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
    return exact.get(trimmed) ?? dynamic.find((r) => r.regex.test(p))?.page;
  };
}

/**
 * The matcher of the Next app in `appDir` (its `.next/routes-manifest.json`); matches nothing when the app has no
 * build there (development before the first page is compiled), so every page is `unmatched` then.
 */
export function loadPageRoutes(appDir: string): PageRouteOf {
  try {
    const text = fs.readFileSync(path.join(appDir, ".next", "routes-manifest.json"), "utf8");
    return pageRoutes(JSON.parse(text) as RoutesManifest);
  } catch {
    return () => undefined;
  }
}
