/** The dashboard's tRPC API (`/api/trpc`): one router per area, and `createCaller` for tests. */
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { createCallerFactory, router } from "./init";
import { accountsRouter } from "./routers/accounts";
import { apiKeysRouter } from "./routers/api-keys";
import { auditRouter } from "./routers/audit";
import { authRouter } from "./routers/auth";
import { categoriesRouter } from "./routers/categories";
import { ordersRouter } from "./routers/orders";
import { overviewRouter } from "./routers/overview";
import { petsRouter } from "./routers/pets";
import { plansRouter } from "./routers/plans";
import { portalRouter } from "./routers/portal";
import { securityRouter } from "./routers/security";
import { sessionsRouter } from "./routers/sessions";
import { usersRouter } from "./routers/users";
import { webhooksRouter } from "./routers/webhooks";

export const appRouter = router({
  auth: authRouter,
  pets: petsRouter,
  orders: ordersRouter,
  categories: categoriesRouter,
  apiKeys: apiKeysRouter,
  plans: plansRouter,
  users: usersRouter,
  audit: auditRouter,
  overview: overviewRouter,
  sessions: sessionsRouter,
  security: securityRouter,
  webhooks: webhooksRouter,
  accounts: accountsRouter,
  portal: portalRouter,
});

/** What each procedure returns, for the dashboard's components. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
/** What each procedure takes. */
export type RouterInputs = inferRouterInputs<AppRouter>;

export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a given (inner) context: `createCaller(await createInnerContext(...))`. */
export const createCaller = createCallerFactory(appRouter);
