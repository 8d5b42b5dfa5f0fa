/**
 * Admission, the stage of the /v1 pipeline that decides who calls and whether the request may proceed
 * (docs/contract.md section 2 "Keys" and section 3 "Rate limits"), before any operation runs.
 *
 * - A bearer key the caches know as valid counts against its own minute and day windows (a key of a consumer
 *   account against the account's, which all its keys share: `rateLimitSubject`); a request without a
 *   key, or with a key known to be invalid (malformed, of the other deployment, or refused less than 4 s ago),
 *   against its client address's anonymous bucket. Failed authentication never costs a key anything.
 * - A key the caches do not know is looked up in the database only within the client address's anonymous
 *   budget: the look-up is counted in that bucket first (429 without a look-up once it is used up) and the
 *   count is given back when the key proves valid. A key the caches knew as valid (`wasValid`) is looked up
 *   again without the budget, so a flood from its address cannot lock it out. Concurrent requests with a key being looked up wait for that
 *   look-up instead. So a flood of forged keys costs at most the anonymous budget in database look-ups, however
 *   many keys it tries, while a valid key pays nothing.
 * - A key that cannot be checked because the database does not answer is 503 `service_unavailable` (core's
 *   error translator), never the anonymous bucket's 429; when this instance read the key as valid before, the
 *   503 is logged and counted for it (`lastKnownCaller`).
 * Every answer carries the rate-limit headers of the decision; a denial is answered 429 `rate_limited`,
 * `quota_exceeded` or `key_banned` right here, that of a client address's anonymous budget after the limiter's hold (`holdRefusal`).
 */
import type { Problem } from "@petstore/contracts";
import { type ApiCaller, keyPrefixFor, type RateLimitDecision, type Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import { trustedClientIp } from "../../client-ip.ts";
import { rateLimitHeaders } from "../../http/rate-limit-headers.ts";
import type { RestEnv } from "../env.ts";
import { respondProblem } from "../respond.ts";

const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/** The 429 of a denied decision (its headers are on the answer already, as on every admitted one). */
function denial(
  decision: RateLimitDecision,
  headers: Record<string, string>,
  caller: ApiCaller | undefined,
): Problem {
  const retry = headers["Retry-After"] ?? "1";
  if (decision.code === "key_banned") {
    const who = caller?.account ? "This account's API keys are" : "This API key is";
    return {
      code: "key_banned",
      message: `${who} temporarily banned for repeatedly calling while rate limited; retry after ${retry} s and back off exponentially.`,
    };
  }
  const window = decision.reported;
  if (decision.code === "quota_exceeded") {
    const whose = caller?.account ? "This account's" : "This API key's";
    return {
      code: "quota_exceeded",
      message: `${whose} monthly quota of ${window?.limit ?? 0} requests is used up; it starts over at 00:00 UTC on the 1st, in ${retry} s.`,
    };
  }
  const what = window ? `${window.limit} requests per ${window.name}` : "the rate limit";
  return { code: "rate_limited", message: `Rate limit exceeded: ${what}. Retry after ${retry} s.` };
}

export const admission = (rt: Pick<Runtime, "apiKeys" | "rateLimiter" | "config" | "usageAlerts">) => {
  const { rateLimiter } = rt;
  const checkKey = (caller: ApiCaller, storeFailed = false) =>
    rateLimiter.checkKey(
      {
        keyId: caller.rateLimitSubject,
        perMinute: caller.perMinute,
        perDay: caller.perDay,
        perMonth: caller.perMonth,
      },
      { storeFailed },
    );

  /**
   * The caller behind `token` and the decision counted for the request; when the look-up fails, `onBudget` gets
   * the decision of its budget, so that the 503 carries its headers too. @throws 503 on an outage.
   */
  async function decide(
    token: string | undefined,
    ip: () => string,
    onBudget: (decision: RateLimitDecision) => void,
  ): Promise<{ caller?: ApiCaller; decision: RateLimitDecision }> {
    // A request waiting for another one's look-up decides again when that one gives it up (at most twice).
    for (let round = 0; token && round < 3; round++) {
      const check = rt.apiKeys.peek(token);
      if (check.kind === "valid") return { caller: check.caller, decision: await checkKey(check.caller) };
      if (check.kind === "invalid") break;
      if (check.kind === "pending") {
        const caller = await check.result;
        if (caller) return { caller, decision: await checkKey(caller) };
        if (caller === undefined) break;
        continue;
      }
      const claim = rt.apiKeys.claim(token);
      const budget = check.wasValid ? undefined : await rateLimiter.checkAnonymous(ip());
      if (budget && !budget.allowed) {
        claim.release();
        return { decision: budget };
      }
      let caller: ApiCaller | undefined;
      try {
        caller = await claim.lookup();
      } catch (error) {
        // The 503 carries the headers of the address's budget, as every answer without a caller does.
        const charged = budget ?? (await rateLimiter.checkAnonymous(ip()));
        void rateLimiter.refundAnonymous(ip(), charged);
        onBudget(charged);
        throw error;
      }
      if (!caller) return { decision: budget ?? (await rateLimiter.checkAnonymous(ip())) };
      if (budget) void rateLimiter.refundAnonymous(ip(), budget);
      return { caller, decision: await checkKey(caller, budget?.degraded) };
    }
    return { decision: await rateLimiter.checkAnonymous(ip()) };
  }

  const otherEnvironment = rt.config.environment === "production" ? "staging" : "production";
  const otherPrefix = keyPrefixFor(otherEnvironment);

  return createMiddleware<RestEnv>(async (c, next) => {
    const header = c.req.header("authorization");
    if (header !== undefined) c.set("tokenSent", true);
    const ip = () => trustedClientIp(c.req.raw.headers);
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    let admitted: Awaited<ReturnType<typeof decide>>;
    try {
      admitted = await decide(token, ip, (budget) => c.set("rateLimit", rateLimitHeaders(budget)));
    } catch (error) {
      // An outage's 503 still belongs in the log and usage of a key this instance knew (docs/contract.md section 7).
      const known = token === undefined ? undefined : rt.apiKeys.lastKnown(token);
      if (known) c.set("lastKnownCaller", known);
      throw error;
    }
    const { caller, decision } = admitted;
    if (caller) {
      c.set("caller", caller);
      // From the counts just returned: no I/O unless this request reached one of its account's thresholds.
      rt.usageAlerts.observe(caller, decision);
    }
    // A key of the other deployment (a staging key sent to production, or the reverse) is named in the 401.
    else if (token?.startsWith(otherPrefix)) c.set("keyEnvironment", otherEnvironment);
    c.set("rateLimitDecision", decision);
    const headers = rateLimitHeaders(decision);
    c.set("rateLimit", headers);
    if (!decision.allowed) {
      c.set("deniedBy", decision.code);
      if (!caller) await rateLimiter.holdRefusal(decision);
      return respondProblem(denial(decision, headers, caller), c);
    }
    await next();
  });
};
