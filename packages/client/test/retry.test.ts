/** The retry budget and backoff as pure functions, with the randomness pinned. */
import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  DEFAULT_RETRY,
  nextRetryDelay,
  parseRetryAfter,
  type RetryPolicy,
  retryPolicy,
} from "../src/retry.ts";

const policy: RetryPolicy = { maxAttempts: 5, maxDelayMs: 10_000, baseDelayMs: 100, maxBackoffMs: 1_000 };

describe("full-jitter exponential backoff", () => {
  it("doubles the ceiling per retry up to the cap, and scales it by the random draw", () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, policy, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });
});

describe("next retry delay", () => {
  const half = () => 0.5;

  it("waits exactly the Retry-After when the response names one", () => {
    expect(nextRetryDelay({ attempts: 1, waitedMs: 0, retryAfterMs: 3_000 }, policy, half)).toBe(3_000);
  });

  it("backs off with jitter when there is no Retry-After", () => {
    expect(nextRetryDelay({ attempts: 1, waitedMs: 0, retryAfterMs: undefined }, policy, half)).toBe(50);
    expect(nextRetryDelay({ attempts: 3, waitedMs: 0, retryAfterMs: undefined }, policy, half)).toBe(200);
  });

  it("stops when the attempts are used up", () => {
    expect(nextRetryDelay({ attempts: 4, waitedMs: 0, retryAfterMs: 10 }, policy, half)).toBe(10);
    expect(nextRetryDelay({ attempts: 5, waitedMs: 0, retryAfterMs: 10 }, policy, half)).toBeUndefined();
  });

  it("never waits past the total budget: a longer Retry-After (a ban) ends the call at once", () => {
    expect(nextRetryDelay({ attempts: 1, waitedMs: 0, retryAfterMs: 10_000 }, policy, half)).toBe(10_000);
    expect(nextRetryDelay({ attempts: 1, waitedMs: 0, retryAfterMs: 900_000 }, policy, half)).toBeUndefined();
    expect(
      nextRetryDelay({ attempts: 2, waitedMs: 9_000, retryAfterMs: 2_000 }, policy, half),
    ).toBeUndefined();
    expect(nextRetryDelay({ attempts: 2, waitedMs: 9_990, retryAfterMs: undefined }, policy, half)).toBe(
      undefined,
    );
  });

  it("defaults wait out a per-minute window but not a 15-minute ban", () => {
    const d = retryPolicy();
    expect(d).toEqual(DEFAULT_RETRY);
    expect(nextRetryDelay({ attempts: 1, waitedMs: 0, retryAfterMs: 60_000 }, d, half)).toBe(60_000);
    expect(nextRetryDelay({ attempts: 1, waitedMs: 0, retryAfterMs: 900_000 }, d, half)).toBeUndefined();
  });

  it("rejects a budget that makes no sense", () => {
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => retryPolicy({ maxAttempts: 1.5 })).toThrow(/maxAttempts/);
    expect(() => retryPolicy({ maxDelayMs: -1 })).toThrow(/maxDelayMs/);
    expect(() => retryPolicy({ baseDelayMs: Number.NaN })).toThrow(/baseDelayMs/);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");

  it("reads delay-seconds and HTTP-dates (RFC 9110 section 10.2.3)", () => {
    expect(parseRetryAfter("7", now)).toBe(7_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Sun, 01 Mar 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sun, 01 Mar 2026 11:00:00 GMT", now)).toBe(0);
  });

  it("ignores an absent or unreadable value", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
});
