/**
 * The per-operation guard of Bearer authentication (RFC 6750; docs/interface.md "Authentication"): 401
 * `unauthorized` with WWW-Authenticate unless admission (admission.ts) found a valid key.
 */
import { problems } from "@petstore/contracts";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";
import { errorResponse } from "../problem.ts";

export const requireCaller = createMiddleware<RestEnv>(async (c, next) => {
  if (c.get("caller")) return next();
  return errorResponse(problems.unauthorized(c.get("tokenSent")), c);
});
