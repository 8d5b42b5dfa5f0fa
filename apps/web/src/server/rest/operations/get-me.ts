/**
 * GET /v1/me (getMe), an addition to the interface (docs/contract.md section 1, "GET /v1/me (getMe)"): the calling
 * API key as its holder may see it (prefix, name, scopes, expiry; never the secret or its hash), its plan with the
 * key's effective limits, and its minute, day and (with a quota) month windows. Any valid key may ask about itself: no scope is needed.
 * The windows are those admission counted this request with (middleware/admission.ts), the same numbers as the
 * answer's rate-limit headers: no second look at the rate-limit store.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { Me, type RateLimitWindow } from "@petstore/contracts";
import type { RateLimitDecision, WindowName } from "@petstore/core";
import type { RestEnv } from "../env.ts";
import { requireCaller } from "../middleware/require-caller.ts";
import { baseErrorCodes, bearerSecurity, errorResponses, responseHeaders } from "../openapi-shared.ts";
import { respondJson } from "../respond.ts";

export const getMeRoute = createRoute({
  operationId: "getMe",
  method: "get",
  path: "/me",
  summary: "Describe the calling API key",
  description:
    "An addition to the interface: the API key of the request (display prefix, name, scopes, expiry; never the secret), " +
    "the consumer account that holds it, its plan with the key's effective limits, and its minute, day and (with a monthly quota) month rate-limit windows after this request, which " +
    "counts like any other. Needs a valid key and no particular scope.",
  tags: ["keys"],
  security: bearerSecurity(),
  middleware: [requireCaller] as const,
  responses: {
    200: {
      description: "The calling key, its plan and its rate-limit windows.",
      headers: responseHeaders(),
      content: { "application/json": { schema: Me } },
    },
    ...errorResponses(...baseErrorCodes),
  },
});

/** The window `name` of `decision` as the answer states it; undefined when the limiter does not count it. */
function windowOf(decision: RateLimitDecision | undefined, name: WindowName): RateLimitWindow | undefined {
  const w = decision?.windows.find((window) => window.name === name);
  return w && { limit: w.limit, remaining: w.remaining, resetsAt: new Date(w.resetMs).toISOString() };
}

export function registerGetMe(app: OpenAPIHono<RestEnv>): void {
  app.openapi(getMeRoute, (c) => {
    // requireCaller ran first: a request without a valid key never gets here.
    const caller = c.get("caller") as NonNullable<RestEnv["Variables"]["caller"]>;
    const decision = c.get("rateLimitDecision");
    const minute = windowOf(decision, "minute");
    const day = windowOf(decision, "day");
    const month = windowOf(decision, "month") ?? null;
    const me: Me = {
      key: {
        prefix: caller.prefix,
        name: caller.name,
        scopes: [...caller.scopes],
        expiresAt: caller.expiresAt?.toISOString() ?? null,
      },
      account: caller.account,
      plan: {
        name: caller.plan,
        limits: { perMinute: caller.perMinute, perDay: caller.perDay, perMonth: caller.perMonth },
      },
      rateLimit: minute && day ? { minute, day, month } : null,
    };
    return respondJson<Me, 200>(c, 200, JSON.stringify(me));
  });
}
