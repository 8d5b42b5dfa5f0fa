/**
 * Rate-limit stage of the /v1 pipeline: sits after `resolveCaller` (so it knows keyed from anonymous
 * traffic) and before the operation. Filled in by the rate-limit module (PRODUCT.md section 3).
 */
import type { Runtime } from "@petstore/core";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";

export const rateLimit = (_rt: Runtime) =>
  createMiddleware<RestEnv>(async (_c, next) => {
    await next();
  });
