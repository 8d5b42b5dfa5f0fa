/**
 * The dashboard's JSON API and its download, served by server.ts on its own runtime (the dashboard process,
 * dashboard.ts, never opens one): `/api/trpc/*` (trpc/handler.ts) and the downloads `GET /api/animals/export`
 * (animals-export.ts), `GET /api/audit/export` (audit-export.ts), `GET /api/keys/export` (keys-export.ts),
 * `GET /api/keys/deprecated-calls/export`
 * (deprecated-calls-export.ts) and `GET /api/usage/export` (usage-export.ts, the billing CSV), and GitHub's
 * secret-scanning reports, `POST /api/hooks/github/secret-scanning` (secret-scanning.ts). The router
 * (http/router.ts) sends them here through the same gates as the pages.
 */
import { problems, SECRET_SCANNING_PATH } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { ANIMALS_EXPORT, animalsExportResponse } from "./animals-export.ts";
import { AUDIT_EXPORT, auditExportResponse } from "./audit-export.ts";
import { DEPRECATED_CALLS_EXPORT, deprecatedCallsExportResponse } from "./deprecated-calls-export.ts";
import { errorResponse } from "./http/error-answer.ts";
import { KEYS_EXPORT, keysExportResponse } from "./keys-export.ts";
import { secretScanningResponse } from "./secret-scanning.ts";
import { handleTrpcRequest, TRPC_ENDPOINT } from "./trpc/handler.ts";
import { appRouter } from "./trpc/router.ts";
import { USAGE_EXPORT, usageExportResponse } from "./usage-export.ts";

/** The downloads, by path. */
const DOWNLOADS: Record<string, (rt: Runtime, request: Request) => Promise<Response>> = {
  [ANIMALS_EXPORT]: animalsExportResponse,
  [AUDIT_EXPORT]: auditExportResponse,
  [DEPRECATED_CALLS_EXPORT]: deprecatedCallsExportResponse,
  [KEYS_EXPORT]: keysExportResponse,
  [USAGE_EXPORT]: usageExportResponse,
};
const isDownload = (path: string) => Object.hasOwn(DOWNLOADS, path);

/** True for the paths (query string excluded) this handler answers. */
export const isDashboardApiPath = (path: string): boolean =>
  path.startsWith(`${TRPC_ENDPOINT}/`) || isDownload(path) || path === SECRET_SCANNING_PATH;

/** The procedures the tRPC router serves (`pets.list`, ...). */
const PROCEDURES = new Set(Object.keys(appRouter._def.procedures));

/**
 * The route labels of a path `isDashboardApiPath` accepts (request-log.ts): `trpc:<procedure>` for each distinct
 * procedure a tRPC request names (a batch names several, comma-separated; a name the router does not serve is
 * `trpc:unknown`), a download's path for a download.
 */
export function dashboardApiRoutes(path: string): string[] {
  if (isDownload(path) || path === SECRET_SCANNING_PATH) return [path];
  let names = path.slice(TRPC_ENDPOINT.length + 1);
  try {
    names = decodeURIComponent(names);
  } catch {
    // Not percent-encoded sanely: its names are unknown anyway.
  }
  const labels = names.split(",").map((name) => `trpc:${PROCEDURES.has(name) ? name : "unknown"}`);
  return [...new Set(labels)];
}

/** `(request) => response` for the paths `isDashboardApiPath` accepts, on runtime `rt`. */
export function createDashboardApiFetch(rt: Runtime): (request: Request) => Promise<Response> {
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === SECRET_SCANNING_PATH) return secretScanningResponse(rt, request);
    const download = DOWNLOADS[path];
    if (!download) return handleTrpcRequest(rt, request);
    if (request.method === "GET" || request.method === "HEAD") return download(rt, request);
    return errorResponse(
      problems.methodNotAllowed(request.method, ["GET", "HEAD"]),
      request.headers.get("x-request-id"),
    );
  };
}
