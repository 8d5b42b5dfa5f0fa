/**
 * The public REST API v1 as one Hono app (mounted by server.ts at /v1: handler.ts). Pipeline, in order:
 * request context (id, common headers, log line) → CORS (preflights answered) → getPet lifecycle headers →
 * admission (caller and rate limits) → 405/404 → operation (auth and scope guards, body gate, zod validation,
 * handler) → error rendering.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { problems, validationProblem } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { TrieRouter } from "hono/router/trie-router";
import { rawAnswerStatus } from "../http/error-answer.ts";
import type { RestEnv } from "./env.ts";
import { admission } from "./middleware/admission.ts";
import { crossOrigin } from "./middleware/cors.ts";
import { requestContext } from "./middleware/request-context.ts";
import { registerOpenApiDocument } from "./openapi-document.ts";
import { registerSharedComponents } from "./openapi-shared.ts";
import { registerCancelOrder } from "./operations/cancel-order.ts";
import { registerCompleteOrder } from "./operations/complete-order.ts";
import { registerCreateOrder } from "./operations/create-order.ts";
import { registerCreatePet } from "./operations/create-pet.ts";
import { registerGetInventory } from "./operations/get-inventory.ts";
import { registerGetMe } from "./operations/get-me.ts";
import { registerGetOrder } from "./operations/get-order.ts";
import { getPetLifecycle, registerGetPet } from "./operations/get-pet.ts";
import { registerListCategories } from "./operations/list-categories.ts";
import { registerListOrders } from "./operations/list-orders.ts";
import { registerListPets } from "./operations/list-pets.ts";
import { registerUpdatePet } from "./operations/update-pet.ts";
import { problemFromError, respondProblem } from "./respond.ts";

/**
 * Builds the REST app over `rt`. Call `.fetch(request)` with a full URL whose path starts with /v1.
 * Operations are declared relative to `{base_url}` (which includes /v1, as the servers in the OpenAPI
 * document say) and mounted under /v1.
 */
export function createRestApp(rt: Runtime) {
  const app = new OpenAPIHono<RestEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return respondProblem(validationProblem(result.error), c);
    },
  });

  // Preflights and 405s are answered before any operation matches: their log line and counter take the route
  // of their path, looked up (once built, on the first) only for answers no operation gave.
  let templates: TrieRouter<string> | undefined;
  const templateOf = (path: string): string | undefined => {
    if (!templates) {
      templates = new TrieRouter<string>();
      for (const r of root.routes) if (r.method !== "ALL") templates.add("ALL", r.path, r.path);
    }
    return templates.match("ALL", path)[0][0]?.[0];
  };
  // The methods of a path's operations (HEAD with GET), as a 405's Allow lists them; none for an unknown path.
  let methodsByTemplate: Map<string, string[]> | undefined;
  const methodsOf = (path: string): string[] => {
    if (!methodsByTemplate) {
      methodsByTemplate = new Map();
      for (const r of root.routes) {
        if (r.method === "ALL" || r.method === "HEAD") continue;
        const methods = methodsByTemplate.get(r.path) ?? [];
        for (const method of r.method === "GET" ? ["GET", "HEAD"] : [r.method])
          if (!methods.includes(method)) methods.push(method);
        methodsByTemplate.set(r.path, methods);
      }
    }
    const template = templateOf(path);
    return (template && methodsByTemplate.get(template)) || [];
  };
  app.use("*", requestContext(rt, templateOf));
  app.use("*", crossOrigin(rt.config, methodsOf)); // answers OPTIONS before admission: it costs no quota
  app.use("/pets/:petId", getPetLifecycle(rt));
  app.use("*", admission(rt));
  // After rate limiting, so that a 405 (like every answer of the app) carries the limit headers.
  app.use(
    "*",
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => respondProblem(problems.methodNotAllowed(c.req.method, methods), c),
    }),
  );
  // Hono hands only Error instances to onError: anything else thrown by an operation (a rejected string or
  // plain object) would escape as a bare text 500. Wrap it, so it too becomes the JSON `internal_error`.
  app.use("*", async (_c, next) => {
    try {
      await next();
    } catch (error) {
      throw error instanceof Error
        ? error
        : new Error("A value that is not an Error was thrown", { cause: error });
    }
  });

  registerSharedComponents(app);
  registerListPets(app, rt);
  registerCreatePet(app, rt);
  registerGetPet(app, rt);
  registerUpdatePet(app, rt);
  // The store section (docs/contract.md section 1): orders, and the inventory.
  registerListOrders(app, rt);
  registerCreateOrder(app, rt);
  registerGetOrder(app, rt);
  registerCompleteOrder(app, rt);
  registerCancelOrder(app, rt);
  registerGetInventory(app, rt);
  // Additions to the interface (docs/contract.md section 1): what a client needs to call the three operations.
  registerListCategories(app, rt);
  registerGetMe(app, rt);
  registerOpenApiDocument(app, rt);

  const log = (obj: object, msg: string) => rt.logger.error(obj, msg);
  const quiet = () => undefined;
  const refusedForDatabase = (error: unknown) => rt.dependencies.down("database", error, true);
  const onError = (error: Error, c: Parameters<Parameters<typeof app.onError>[0]>[1]) => {
    // A request whose body was cut off (the client went, or the server answered it 408 on the socket) is the
    // client's doing, and nobody reads this answer: its request line says so, without an error's stack.
    const incoming = c.env?.incoming;
    const cutOff = rawAnswerStatus(incoming?.socket) !== undefined || Boolean(incoming?.errored);
    return respondProblem(problemFromError(error, c, cutOff ? quiet : log, refusedForDatabase), c);
  };
  // The error handler is the root's only: Hono's `route()` wraps every handler and middleware of a sub-app that has
  // an error handler of its own in a second compose per call (~14 KB of garbage per request). The root's
  // catches an error at the layer that threw it all the same, so outer middleware still sees the error response.
  const root = new Hono<RestEnv>().route("/v1", app);
  root.notFound((c) => respondProblem(problems.notFound(c.req.path), c));
  root.onError(onError);
  return root;
}

export type RestApp = ReturnType<typeof createRestApp>;
