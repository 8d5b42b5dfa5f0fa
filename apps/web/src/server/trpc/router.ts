/** The dashboard's tRPC API (`/api/trpc`): one router per area, and `createCaller` for tests. */
import { createCallerFactory, router } from "./init";
import { apiKeysRouter } from "./routers/api-keys";
import { auditRouter } from "./routers/audit";
import { authRouter } from "./routers/auth";
import { categoriesRouter } from "./routers/categories";
import { overviewRouter } from "./routers/overview";
import { petsRouter } from "./routers/pets";
import { plansRouter } from "./routers/plans";
import { usersRouter } from "./routers/users";

export const appRouter = router({
  auth: authRouter,
  pets: petsRouter,
  categories: categoriesRouter,
  apiKeys: apiKeysRouter,
  plans: plansRouter,
  users: usersRouter,
  audit: auditRouter,
  overview: overviewRouter,
});

export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a given (inner) context: `createCaller(await createInnerContext(...))`. */
export const createCaller = createCallerFactory(appRouter);
