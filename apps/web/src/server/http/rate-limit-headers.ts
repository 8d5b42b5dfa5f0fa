/**
 * The rate-limit headers of an answer, from core's decision (docs/contract.md section 1 "Every response under
 * /v1" and section 3; docs/interface.md "Rate limit headers" and "Exceeding the limit"). Core decides in numbers;
 * the HTTP surface formats them here, for the REST app's admission, the app's server and /metrics.
 */
import type { RateLimitDecision, WindowState } from "@petstore/core";

function secondsLeft(w: WindowState, at: number): number {
  return Math.max(0, Math.ceil((w.resetMs - at) / 1000));
}

/**
 * Pure: maps a decision to headers.
 * Input: a `RateLimitDecision` (times in Unix ms).
 * Output: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix seconds, for `reported`),
 * `RateLimit-Policy` (`"minute";q=60;w=60, "day";q=1000;w=86400`), `RateLimit` (`"minute";r=12;t=34, ...`,
 * t = seconds left), plus `Retry-After` (whole seconds >= 1) on a denial. `{}` when the decision has no windows
 * (limiter disabled). Never throws.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const { reported, windows, at } = decision;
  if (!reported || windows.length === 0) return {};
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(reported.limit),
    "X-RateLimit-Remaining": String(reported.remaining),
    "X-RateLimit-Reset": String(Math.ceil(reported.resetMs / 1000)),
    "RateLimit-Policy": windows.map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(", "),
    RateLimit: windows.map((w) => `"${w.name}";r=${w.remaining};t=${secondsLeft(w, at)}`).join(", "),
  };
  if (!decision.allowed) headers["Retry-After"] = String(Math.max(1, decision.retryAfterSeconds ?? 1));
  return headers;
}
