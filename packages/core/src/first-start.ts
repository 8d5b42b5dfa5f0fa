/**
 * First start of the service on a fresh embedded database (docs/operations.md, "Running it"; docs/contract.md
 * section 5): seed the reference and demo data, issue a demo API key and create a demo admin, whose secrets
 * the caller prints once. The rule of when demo accounts exist lives here and only here
 * (`offersDemoAccounts`, users/demo-admin.ts).
 */
import type { Config } from "@petstore/config";
import type { PrismaClient } from "@petstore/db";
import type { ApiKeyService } from "./api-keys/service.ts";
import type { DatabaseOperations } from "./database/operations.ts";
import { BOOTSTRAP_ACTOR, ensureDemoAdmin, offersDemoAccounts } from "./users/demo-admin.ts";
import type { UserService } from "./users/service.ts";

/** What a first start created; secrets appear here once and are stored only as hashes. */
export interface FirstStart {
  /** The demo API key (free plan), in full. */
  demoKey?: string;
  /** The demo admin's email and generated password. */
  demoAdmin?: { email: string; password: string };
}

/**
 * When demo accounts are offered and no API key exists yet: seeds, issues a free-plan key named `demo`, and
 * creates the demo admin (when no user exists). Otherwise does nothing and returns `{}`.
 */
export async function setUpFirstStart(
  deps: { prisma: PrismaClient; config: Config },
  services: {
    database: Pick<DatabaseOperations, "seed">;
    apiKeys: Pick<ApiKeyService, "create">;
    users: Pick<UserService, "count" | "create">;
  },
): Promise<FirstStart> {
  if (!offersDemoAccounts(deps.config)) return {};
  if ((await deps.prisma.apiKey.count()) > 0) return {};
  await services.database.seed();
  const key = await services.apiKeys.create({ name: "demo", plan: "free" }, BOOTSTRAP_ACTOR);
  const demoAdmin = await ensureDemoAdmin({ config: deps.config, users: services.users });
  return { demoKey: key.key, ...(demoAdmin ? { demoAdmin } : {}) };
}
