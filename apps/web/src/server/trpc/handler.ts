/**
 * HTTP entry of the tRPC API (fetch adapter). State-changing calls are POSTs (tRPC refuses mutations over
 * GET) and must come from this site: a POST whose Origin (or Sec-Fetch-Site) says cross-site is refused
 * with 403 before any procedure runs. Responses are never cached. Unexpected errors are logged.
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getRuntime } from "../runtime";
import { createRequestContext } from "./context";
import { isSameOrigin } from "./http";
import { appRouter } from "./router";

export const TRPC_ENDPOINT = "/api/trpc";

/** Handles one request to `/api/trpc/*`. */
export async function handleTrpcRequest(req: Request): Promise<Response> {
  const rt = await getRuntime();
  if (req.method !== "GET" && !isSameOrigin(req.headers, rt.config)) {
    return Response.json(
      { error: { message: "Cross-site requests are not allowed.", code: "FORBIDDEN" } },
      { status: 403, headers: { "Cache-Control": "no-store" } },
    );
  }
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createRequestContext(rt, req, resHeaders),
    responseMeta: () => ({ headers: { "Cache-Control": "no-store" } }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR")
        rt.logger.error({ err: error.cause ?? error, path }, "tRPC procedure failed");
    },
  });
}
