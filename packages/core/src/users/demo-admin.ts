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
const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/**
 * Creates the demo admin when the conditions above hold.
 * @returns the email and the generated password (shown nowhere else), or `undefined` when nothing was created.
 */
export async function ensureDemoAdmin(runtime: {
  config: Pick<Config, "environment" | "database">;
  users: Pick<UserService, "count" | "create">;
}): Promise<{ email: string; password: string } | undefined> {
  if (runtime.config.environment === "production" || runtime.config.database.kind !== "pglite")
    return undefined;
  if ((await runtime.users.count()) > 0) return undefined;
  let password = "";
  for (let i = 0; i < 20; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  try {
    await runtime.users.create(
      { email: DEMO_ADMIN_EMAIL, name: "Demo admin", role: "admin", password },
      "system:bootstrap",
    );
  } catch (error) {
    // Another process created it first.
    if (AppError.is(error) && error.code === "validation_failed") return undefined;
    throw error;
  }
  return { email: DEMO_ADMIN_EMAIL, password };
}
