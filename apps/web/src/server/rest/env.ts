/** Hono environment of the REST app: per-request variables set by the pipeline middleware. */
import type { ApiCaller, RateLimitDecision } from "@petstore/core";
import type { NodeBindings } from "../http/fetch-listener.ts";

export interface RestVariables {
  requestId: string;
  /** The key's caller when a valid bearer key was sent. */
  caller?: ApiCaller;
  /**
   * The key's caller as this instance last knew it, when admission could not verify the key because the database
   * did not answer (a 503): the request is logged and counted for it, and nothing else uses it.
   */
  lastKnownCaller?: ApiCaller;
  /** Whether an Authorization header was sent at all (for WWW-Authenticate's `error="invalid_token"`). */
  tokenSent: boolean;
  /** Set when the token sent is a key of the other deployment (`pet_test_` on production, `pet_live_` on staging). */
  keyEnvironment?: "production" | "staging";
  /** The rate-limit headers of the request's admission (every answer after admission carries them). */
  rateLimit?: Record<string, string>;
  /** The decision admission counted the request with: a valid key's windows are what `GET /v1/me` reports. */
  rateLimitDecision?: RateLimitDecision;
  /** Set when admission denied the request: which 429 it answered. */
  deniedBy?: "rate_limited" | "quota_exceeded" | "key_banned";
  /** getPet's lifecycle headers (Deprecation, Sunset, Link), on every answer of that operation. */
  lifecycle?: Record<string, string>;
  /** The CORS headers of the request (middleware/cors.ts): `Vary: Origin`, and for a browser its allowance. */
  cors?: Record<string, string>;
  /** The error code of an error answer (respond.ts), for the request's log line. */
  errorCode?: string;
  /** A cacheable answer's `ETag` and `Cache-Control` (conditional.ts), in place of the default no-store. */
  caching?: Record<string, string>;
}

export interface RestEnv {
  Variables: RestVariables;
  /** The Node request and response under server.ts (fetch-listener.ts); absent when a test calls the app itself. */
  Bindings: Partial<NodeBindings> | undefined;
}
