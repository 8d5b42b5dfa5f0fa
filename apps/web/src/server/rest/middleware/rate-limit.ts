/**
 * Rate-limit stage of the /v1 pipeline (docs/contract.md section 3): after `resolveCaller`, before the operation.
 * Keyed requests count against the key's minute and day windows; anything without a valid key against
 * its client IP's bucket (so failed authentication never costs a key anything). Every response gets the
 * X-RateLimit-* / RateLimit-Policy / RateLimit headers; a denial is 429 `rate_limited` or `key_banned`
 * with Retry-After.
 */
import { AppError } from "@petstore/contracts";
import { type RateLimitDecision, type Runtime, rateLimitHeaders } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import { trustedClientIp } from "../../client-ip.ts";
import type { RestEnv } from "../env.ts";

function denial(decision: RateLimitDecision, headers: Record<string, string>): AppError {
  const retry = headers["Retry-After"] ?? "1";
  if (decision.code === "key_banned") {
    return new AppError(
      "key_banned",
      `This API key is temporarily banned for repeatedly calling while rate limited; retry after ${retry} s and back off exponentially.`,
      undefined,
      headers,
    );
  }
  const window = decision.reported;
  const what = window ? `${window.limit} requests per ${window.name}` : "the rate limit";
  return new AppError(
    "rate_limited",
    `Rate limit exceeded: ${what}. Retry after ${retry} s.`,
    undefined,
    headers,
  );
}

export const rateLimit = (rt: Pick<Runtime, "rateLimiter" | "config">) =>
  createMiddleware<RestEnv>(async (c, next) => {
    const caller = c.get("caller");
    const decision = caller
      ? await rt.rateLimiter.checkKey({
          keyId: caller.keyId,
          perMinute: caller.perMinute,
          perDay: caller.perDay,
        })
      : await rt.rateLimiter.checkAnonymous(trustedClientIp(c.req.raw.headers, rt.config.trustProxy));
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) throw denial(decision, headers);
    Object.assign(c.get("responseHeaders"), headers);
    await next();
  });
