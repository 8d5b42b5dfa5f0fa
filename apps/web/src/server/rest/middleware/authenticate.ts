/**
 * Bearer authentication (RFC 6750; docs/interface.md "Authentication"). `resolveCaller` looks at the Authorization
 * header of every request and records the caller when the key is valid, without rejecting anything, so
 * that rate limiting (which sits after it) can tell keyed from anonymous traffic. `requireCaller` is the
 * per-operation guard answering 401 `unauthorized` with WWW-Authenticate.
 * When the key cannot be checked (database down), the request is treated as anonymous for rate limiting and
 * `requireCaller` answers with the error (503), so even that response carries the rate-limit headers.
 */
import { AppError } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";

const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

export const resolveCaller = (rt: Pick<Runtime, "apiKeys">) =>
  createMiddleware<RestEnv>(async (c, next) => {
    const header = c.req.header("authorization");
    if (header !== undefined) {
      c.set("tokenSent", true);
      const token = BEARER.exec(header)?.[1];
      try {
        const caller = token ? await rt.apiKeys.authenticate(token) : undefined;
        if (caller) c.set("caller", caller);
      } catch (error) {
        c.set("authError", error);
      }
    }
    await next();
  });

export const requireCaller = createMiddleware<RestEnv>(async (c, next) => {
  if (c.get("caller")) return next();
  if (c.get("authError")) throw c.get("authError");
  const sent = c.get("tokenSent");
  throw new AppError(
    "unauthorized",
    sent
      ? "The API key is invalid, revoked or expired."
      : "An API key is required: send it as 'Authorization: Bearer <key>'.",
    undefined,
    {
      "WWW-Authenticate": sent
        ? 'Bearer realm="petstore", error="invalid_token", error_description="The API key is invalid, revoked or expired"'
        : 'Bearer realm="petstore"',
    },
  );
});
