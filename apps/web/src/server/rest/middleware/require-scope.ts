/**
 * The per-operation guard of key scopes (docs/contract.md section 2, "Scopes"): 403 `insufficient_scope` with
 * `WWW-Authenticate: Bearer realm="petstore", error="insufficient_scope", scope="<scope>"` (RFC 6750 section
 * 3.1) unless the caller's key holds `scope`. Runs after `requireCaller`, so the request has passed admission:
 * a refusal counts against the key's limits and in its usage like any request that reached the API, and
 * carries the rate-limit headers.
 */
import { type ApiKeyScope, AppError, SCOPE_DESCRIPTIONS } from "@petstore/contracts";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";

/** The challenge naming the missing scope (RFC 6750 section 3: `scope` lists what the request needs). */
export const insufficientScopeChallenge = (scope: ApiKeyScope) =>
  `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`;

/** The guard of an operation that needs `scope`. */
export const requireScope = (scope: ApiKeyScope) => {
  const headers = { "WWW-Authenticate": insufficientScopeChallenge(scope) };
  const message = `This API key may not ${SCOPE_DESCRIPTIONS[scope]}: it lacks the ${scope} scope. An admin can add it to the key, or issue a key that has it.`;
  return createMiddleware<RestEnv>((c, next) =>
    c.get("caller")?.scopes.includes(scope)
      ? next()
      : Promise.reject(new AppError("insufficient_scope", message, undefined, headers)),
  );
};
