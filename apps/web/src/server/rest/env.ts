/** Hono environment of the REST app: per-request variables set by the pipeline middleware. */
import type { ApiCaller, Runtime } from "@petstore/core";

export interface RestVariables {
  requestId: string;
  /** The key's caller when a valid bearer key was sent. */
  caller?: ApiCaller;
  /** Whether an Authorization header was sent at all (for WWW-Authenticate's `error="invalid_token"`). */
  tokenSent: boolean;
  /** Why the key could not be checked (e.g. database unreachable); rethrown by `requireCaller`. */
  authError?: unknown;
  /**
   * Headers every response of this request carries (request id, Cache-Control, Content-Type, rate-limit and
   * lifecycle headers), added by the pipeline before the operation runs; problem.ts puts them on the answer.
   */
  responseHeaders: Record<string, string>;
  /** The last response problem.ts built for this request (it carries `responseHeaders`). */
  answer?: Response;
}

export interface RestEnv {
  Variables: RestVariables;
}

/** What the REST app is built from: the runtime (services, config, clock, logger). */
export type RestDeps = Runtime;
