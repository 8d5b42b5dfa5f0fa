/**
 * The per-operation guard of Bearer authentication (RFC 6750; docs/interface.md "Authentication"): 401
 * `unauthorized` with WWW-Authenticate unless admission (admission.ts) found a valid key; a key of the other
 * deployment (`pet_test_` on production) is told so.
 */
import { problems } from "@petstore/contracts";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";
import { respondProblem } from "../respond.ts";

// Not `async`: a pass-through that only returns `next()` saves the request an async frame and a promise.
export const requireCaller = createMiddleware<RestEnv>((c, next) =>
  c.get("caller")
    ? next()
    : Promise.resolve(respondProblem(problems.unauthorized(c.get("tokenSent"), c.get("keyEnvironment")), c)),
);
