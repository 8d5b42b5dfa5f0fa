/**
 * The rate-limit headers the HTTP surface formats from core's decisions (docs/contract.md section 3;
 * docs/interface.md "Rate limit headers").
 */
import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "../../src/server/http/rate-limit-headers.ts";

describe("rateLimitHeaders", () => {
  it("renders the documented header formats", () => {
    const at = 1_767_225_600_000 + 26_000;
    const minute = {
      name: "minute" as const,
      limit: 60,
      remaining: 12,
      resetMs: at + 34_000,
      windowSeconds: 60,
    };
    const day = {
      name: "day" as const,
      limit: 1000,
      remaining: 870,
      resetMs: at + 50_211_000,
      windowSeconds: 86400,
    };
    expect(rateLimitHeaders({ allowed: true, at, windows: [minute, day], reported: minute })).toEqual({
      "X-RateLimit-Limit": "60",
      "X-RateLimit-Remaining": "12",
      "X-RateLimit-Reset": String((at + 34_000) / 1000),
      "RateLimit-Policy": '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=12;t=34, "day";r=870;t=50211',
    });
    const denied = rateLimitHeaders({
      allowed: false,
      code: "rate_limited",
      at,
      windows: [{ ...minute, remaining: 0 }, day],
      reported: { ...minute, remaining: 0 },
      retryAfterSeconds: 34,
    });
    expect(denied["Retry-After"]).toBe("34");
    expect(denied["X-RateLimit-Remaining"]).toBe("0");
  });

  it("sends none when the limiter decided without windows (disabled)", () => {
    expect(rateLimitHeaders({ allowed: true, at: 0, windows: [] })).toEqual({});
  });

  it("asks for at least 1 s on a denial", () => {
    const window = { name: "minute" as const, limit: 1, remaining: 0, resetMs: 1_000, windowSeconds: 60 };
    const denial = {
      allowed: false,
      code: "rate_limited" as const,
      at: 1_000,
      windows: [window],
      reported: window,
    };
    expect(rateLimitHeaders(denial)["Retry-After"]).toBe("1");
    expect(rateLimitHeaders({ ...denial, retryAfterSeconds: 0 })["Retry-After"]).toBe("1");
    expect(rateLimitHeaders({ ...denial, retryAfterSeconds: 7 })["Retry-After"]).toBe("7");
  });
});
