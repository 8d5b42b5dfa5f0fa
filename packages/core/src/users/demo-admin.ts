/**
 * Development convenience: on a fresh embedded (PGlite) database, create a demo admin whose credentials the
 * app's bootstrap prints once. Never in production (`PETSTORE_ENV=production`), never on PostgreSQL,
 * never when any user exists.
 */
import { randomInt } from "node:crypto";
import type { Config } from "@petstore/config";
import { AppError } from "@petstore/contracts";
import type { UserService } from "./service.ts";

export const DEMO_ADMIN_EMAIL = "admin@petstore.local";
/** The audit actor of what the first start creates (first-start.ts). */
export const BOOTSTRAP_ACTOR = "system:bootstrap";

/** The one rule of demo accounts: only outside production, and only on the embedded (PGlite) database. */
export function offersDemoAccounts(config: Pick<Config, "environment" | "database">): boolean {
  return config.environment !== "production" && config.database.kind === "pglite";
}

const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/**
 * Creates the demo admin when the conditions above hold.
 * @returns the email and the generated password (shown nowhere else), or `undefined` when nothing was created.
 */
export async function ensureDemoAdmin(runtime: {
  config: Pick<Config, "environment" | "database">;
  users: Pick<UserService, "count" | "create">;
}): Promise<{ email: string; password: string } | undefined> {
  if (!offersDemoAccounts(runtime.config)) return undefined;
  if ((await runtime.users.count()) > 0) return undefined;
  let password = "";
  for (let i = 0; i < 20; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  try {
    await runtime.users.create(
      { email: DEMO_ADMIN_EMAIL, name: "Demo admin", role: "admin", password },
      BOOTSTRAP_ACTOR,
    );
  } catch (error) {
    // Another process created it first.
    if (AppError.is(error) && error.code === "validation_failed") return undefined;
    throw error;
  }
  return { email: DEMO_ADMIN_EMAIL, password };
}
