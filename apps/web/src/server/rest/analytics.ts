/**
 * The /v1 pipeline's analytics hook (docs/contract.md section 4, "Usage and analytics"): classifies a finished
 * request by operation and outcome and hands it to the runtime's in-memory recorder. Synchronous and free of
 * I/O: the recorder writes in batches off the request path.
 */
import { type Operation, type Outcome, type Runtime, refusingWindow } from "@petstore/core";
import type { Context } from "hono";
import { trustedClientIp } from "../client-ip.ts";
import type { RestEnv } from "./env.ts";

const OPERATIONS: Record<string, Operation | undefined> = {
  "GET /v1/pets": "listPets",
  "HEAD /v1/pets": "listPets",
  "POST /v1/pets": "createPet",
  "GET /v1/pets/:petId": "getPet",
  "HEAD /v1/pets/:petId": "getPet",
  "PATCH /v1/pets/:petId": "updatePet",
  "GET /v1/store/orders": "listOrders",
  "HEAD /v1/store/orders": "listOrders",
  "POST /v1/store/orders": "createOrder",
  "GET /v1/store/orders/:orderId": "getOrder",
  "HEAD /v1/store/orders/:orderId": "getOrder",
  "POST /v1/store/orders/:orderId/complete": "completeOrder",
  "POST /v1/store/orders/:orderId/cancel": "cancelOrder",
  "GET /v1/store/inventory": "getInventory",
  "HEAD /v1/store/inventory": "getInventory",
  "GET /v1/categories": "listCategories",
  "HEAD /v1/categories": "listCategories",
  "GET /v1/me": "getMe",
  "HEAD /v1/me": "getMe",
};

/** Path and query of a request URL (`/v1/pets?limit=5`). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start < 0 ? "/" : url.slice(start);
}

function outcomeOf(status: number, deniedBy: RestEnv["Variables"]["deniedBy"]): Outcome {
  if (status === 429) return deniedBy === "key_banned" ? "key_banned" : "rate_limited";
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  return "2xx";
}

/**
 * Counts one answered request: its operation (`unauthenticated` without a valid key, `other` when it matched no
 * operation), outcome (for a 429 `rate_limited`, the window that refused it), duration and, for keyed requests,
 * an entry in the key's recent requests, and for a key of a consumer account an entry in the account's request log.
 * @param route the matched route template (`/v1/pets/:petId`) or `unmatched`
 * @param status the status the client got (the server's own 408, when it gave one, not the app's)
 */
export function recordAnalytics(
  rt: Pick<Runtime, "analytics" | "config">,
  c: Context<RestEnv>,
  route: string,
  durationMs: number,
  status: number = c.res.status,
): void {
  const recorder = rt.analytics;
  // A CORS preflight (every OPTIONS, answered before admission) is browser protocol, not a call of the API.
  if (!recorder || c.req.method === "OPTIONS") return;
  // A 503 of an outage is counted for the key this instance last knew (admission's `lastKnownCaller`).
  const caller = c.get("caller") ?? c.get("lastKnownCaller");
  const outcome = outcomeOf(status, c.get("deniedBy"));
  const decision = c.get("rateLimitDecision");
  recorder.record({
    keyId: caller?.keyId,
    operation: caller ? (OPERATIONS[`${c.req.method} ${route}`] ?? "other") : "unauthenticated",
    outcome,
    window: outcome === "rate_limited" ? refusingWindow(decision) : undefined,
    status,
    durationMs,
    at: Date.now(),
    clientIp: caller ? trustedClientIp(c.req.raw.headers) : "",
    requestId: c.get("requestId"),
    ...(caller?.account
      ? {
          log: {
            accountId: caller.account.id,
            keyPrefix: caller.prefix,
            method: c.req.method,
            path: pathOf(c.req.url),
            errorCode: c.get("errorCode") ?? null,
            minuteRemaining: decision?.windows.find((w) => w.name === "minute")?.remaining ?? null,
            dayRemaining: decision?.windows.find((w) => w.name === "day")?.remaining ?? null,
          },
        }
      : {}),
  });
}
