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

/**
 * The guard of an operation that needs `scope`. The refusal says who can fix it: for a key of a consumer account,
 * its members, who create keys in the developer portal themselves (docs/contract.md section 7); otherwise an
 * admin.
 */
export const requireScope = (scope: ApiKeyScope) => {
  const headers = { "WWW-Authenticate": insufficientScopeChallenge(scope) };
  const lacks = `This API key may not ${SCOPE_DESCRIPTIONS[scope]}: it lacks the ${scope} scope.`;
  const message = {
    account: `${lacks} A member of its account can create a key that has it in the developer portal (/portal).`,
    admin: `${lacks} An admin can add it to the key, or issue a key that has it.`,
  };
  return createMiddleware<RestEnv>((c, next) => {
    const caller = c.get("caller");
    if (caller?.scopes.includes(scope)) return next();
    const refusal = caller?.account ? message.account : message.admin;
    return Promise.reject(new AppError("insufficient_scope", refusal, undefined, headers));
  });
};
