/**
 * Pure builders of `RateLimitDecision`s (docs/contract.md section 3: which window the headers describe, Retry-After).
 * All times are Unix ms; `at` is the clock reading of the check.
 */
import { windowEnd } from "./time.ts";
import type { RateLimitDecision, WindowName, WindowState } from "./types.ts";

/** A window's definition: name, length in ms, key prefix handed to @upstash/ratelimit. */
export interface WindowSpec {
  name: WindowName;
  ms: number;
  prefix: string;
  /**
   * An identifier found over the limit is refused from memory until the window ends (the engine's
   * `ephemeralCache`): the client-address windows, where no ban counts denials and no usage reset frees a window.
   */
  refuseFromMemory?: boolean;
}

/** A window together with the limit that applies to this caller. */
export type LimitedWindow = readonly [WindowSpec, number];

/** Window length in whole seconds (>= 1) for `w=`. */
export const windowSeconds = (spec: WindowSpec) => Math.max(1, Math.round(spec.ms / 1000));

/** Whole seconds (>= 1) from `at` until `resetMs`. */
export const retryAfter = (resetMs: number, at: number) => Math.max(1, Math.ceil((resetMs - at) / 1000));

/** The window with the fewest remaining requests; on a tie the one that resets later (the stricter hint). */
export function fewestRemaining(windows: WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>(
    (best, w) =>
      !best || w.remaining < best.remaining || (w.remaining === best.remaining && w.resetMs > best.resetMs)
        ? w
        : best,
    undefined,
  );
}

/** The window that resets last: when several windows deny, requests succeed only after it resets. */
function resetsLast(windows: WindowState[]): WindowState | undefined {
  return windows.reduce<WindowState | undefined>((a, w) => (!a || w.resetMs > a.resetMs ? w : a), undefined);
}

/** Admitted: headers describe the window with the fewest remaining requests. */
export function admitted(at: number, windows: WindowState[]): RateLimitDecision {
  return { allowed: true, at, windows, reported: fewestRemaining(windows) };
}

/** Denied by `denying` (a non-empty subset of `windows`): headers and Retry-After follow the denying window. */
export function rateLimited(at: number, windows: WindowState[], denying: WindowState[]): RateLimitDecision {
  const reported = resetsLast(denying) ?? windows[0];
  return {
    allowed: false,
    code: "rate_limited",
    at,
    windows,
    reported,
    retryAfterSeconds: retryAfter(reported?.resetMs ?? at, at),
  };
}

/** Banned until `until`: every window reports 0 remaining until the ban ends; Retry-After to the ban's end. */
export function banned(at: number, until: number, limits: LimitedWindow[]): RateLimitDecision {
  const windows = limits.map(([spec, limit]) => ({
    name: spec.name,
    limit,
    remaining: 0,
    resetMs: until,
    windowSeconds: windowSeconds(spec),
  }));
  return {
    allowed: false,
    code: "key_banned",
    at,
    windows,
    reported: windows[0],
    retryAfterSeconds: retryAfter(until, at),
    bannedUntil: until,
  };
}

/**
 * Store failed: admitted unchecked (`degraded`). Counts are unknown, so each window reports its full limit and
 * the end of the current window computed locally (never the engine's limit 0 / reset 0).
 */
export function failedOpen(at: number, limits: LimitedWindow[]): RateLimitDecision {
  const windows = limits.map(([spec, limit]) => ({
    name: spec.name,
    limit,
    remaining: limit,
    resetMs: windowEnd(at, spec.ms),
    windowSeconds: windowSeconds(spec),
  }));
  return { ...admitted(at, windows), degraded: true };
}
