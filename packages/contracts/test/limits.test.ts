/** The limits rule (docs/contract.md sections 2 and 3), as every schema and core apply it. */
import { describe, expect, it } from "vitest";
import { ENTERPRISE_NEEDS_LIMITS, limitsProblems, PER_MINUTE_ABOVE_PER_DAY } from "../src/limits.ts";

describe("limitsProblems", () => {
  it("accepts limits within bounds with per-minute at most per-day, and no limits on a plan key", () => {
    expect(limitsProblems({ plan: "enterprise", perMinute: 10, perDay: 10 })).toEqual([]);
    expect(limitsProblems({ plan: "pro" })).toEqual([]);
  });

  it("refuses per-minute above per-day", () => {
    expect(limitsProblems({ perMinute: 11, perDay: 10 })).toEqual([
      { path: "perMinute", message: PER_MINUTE_ABOVE_PER_DAY },
    ]);
  });

  it("reports every problem at once: an out-of-bounds value and a missing Enterprise limit", () => {
    expect(limitsProblems({ plan: "enterprise", perMinute: null, perDay: 1e24 })).toEqual([
      { path: "perDay", message: "must be a whole number from 1 to 100000000" },
      { path: "perMinute", message: ENTERPRISE_NEEDS_LIMITS },
    ]);
  });

  it("does not compare a value that is out of bounds", () => {
    expect(limitsProblems({ perMinute: 0, perDay: -5 }).map((p) => p.path)).toEqual(["perMinute", "perDay"]);
  });
});
