/**
 * Rate limiting for the public API (docs/contract.md section 3; docs/interface.md "Limits").
 * Entry point: `createRateLimiter(options)`; its decisions are numbers, which the HTTP surface turns into headers.
 */

export type { BreakerState } from "./breaker.ts";
export { createStore } from "./create-store.ts";
export { createRateLimiter, type RateLimiterOptions } from "./limiter.ts";
export { createMemoryStore } from "./memory-store.ts";
export { createRedisStore } from "./redis-store.ts";
export type { RateLimitStore } from "./store.ts";
export { StoreTimeoutError } from "./time.ts";
export type {
  AnonymousScope,
  BanInfo,
  KeyLimits,
  RateLimitConfig,
  RateLimitDecision,
  RateLimiter,
  RateLimitLogger,
  RateLimitMetrics,
  StoreKind,
  WindowName,
  WindowState,
} from "./types.ts";
export { createUpstashStore } from "./upstash-store.ts";
