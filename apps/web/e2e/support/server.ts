/**
 * The e2e server: creates a fresh PostgreSQL database (a copy of the migrated template), seeds it, creates the test accounts
 * through the core users service, builds the app (`next build`, unless E2E_SKIP_BUILD=1) and runs the
 * production server (`node dist/server.js`, as `npm start` does) on E2E_PORT. On SIGTERM/SIGINT it stops the server and drops the
 * database. Playwright starts it as its `webServer`; it can also be run by hand:
 *   E2E_PORT=3100 E2E_ADMIN_PASSWORD=... E2E_STAFF_PASSWORD=... npx tsx e2e/support/server.ts
 * E2E_DEV=1 runs the server from source with Next in development mode instead (`tsx server.ts --dev`, as
 * `npm run dev` does; for looking at pages while developing).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime } from "@petstore/core";
import { createMigratedDatabase, databaseOf } from "@petstore/core/testing";
import { e2e, ensureE2eEnv, writeState } from "./accounts";
import { startMailCapture } from "./mail";

ensureE2eEnv();
const appDir = path.resolve(import.meta.dirname, "../..");
const port = String(process.env.E2E_PORT);

const db = await createMigratedDatabase("petstore_e2e");
const mail = await startMailCapture(e2e.mailFile);
const env = {
  ...process.env,
  DATABASE_URL: db.url,
  PORT: port,
  PUBLIC_BASE_URL: e2e.baseUrl,
  PETSTORE_ENV: "staging",
  // Every mail goes to the capture, where the tests read the links they hold (support/mail.ts).
  SMTP_URL: mail.url,
  SMTP_FROM: "Pet Store <store@petstore.e2e>",
  TRUST_PROXY: "1",
  // The webhook tests register a receiver on the loopback address and want a failed attempt retried soon.
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOKS_RETRY_SCHEDULE: "500ms,500ms,500ms",
  // Deliveries leave within a tenth of a second of their event, so a test waits for the receiver, not a poll.
  WEBHOOKS_POLL_INTERVAL_MS: "100",
  LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
  // The browser tests sign in and out many times from one address; the per-address limit of signed-out dashboard
  // traffic has tests of its own (test/hardening).
  DASHBOARD_ANONYMOUS_PER_MINUTE: "100000",
  // Likewise the instance's pools of dashboard work (pages compiled on first use hold their places long).
  DASHBOARD_CONCURRENCY: "1000",
  DASHBOARD_ANONYMOUS_SHARE: "1000",
  SHUTDOWN_DRAIN_MS: "0",
  // The usage counts and the request log are written every second: the tests that read them from the database
  // (the request log, the overview after a flush) wait a second at most. Not shorter: the aggregate row of a flood
  // needs more than the log's 100 refusals one by one within one interval (REQUEST_LOG_ACCOUNT_REFUSALS).
  ANALYTICS_FLUSH_INTERVAL_MS: "1000",
  // The pages' process competes here with the test run's other suites, not with /v1 traffic: at a lower priority
  // it would only wait for them (its priority has a test of its own, test/instances/dashboard-process.test.ts).
  DASHBOARD_NICE: "0",
  // Sign-ins are many and their cost is not the subject here (packages/core's password tests check the default).
  PASSWORD_HASH_COST: "10",
  // The throttle tests send many sign-ins at once; the per-instance cap on password work has tests of its own.
  PASSWORD_HASH_CONCURRENCY: "64",
  // The bounds on database waits have fault tests of their own (test/reliability); here the database is shared with
  // the vitest suites on two cores, where a connection or a statement can wait seconds for a core, and a page
  // answered as "database unavailable" would fail a test about something else.
  DATABASE_CONNECT_TIMEOUT_MS: "15000",
  DATABASE_STATEMENT_TIMEOUT_MS: "20000",
  NEXT_TELEMETRY_DISABLED: "1",
};
try {
  const config = loadConfig(env);
  const rt = await openRuntime({ config, logger: createLogger("silent") });
  await rt.seed();
  for (const [account, role] of [
    [e2e.admin, "admin"],
    [e2e.staff, "staff"],
    [e2e.throttled, "staff"],
    [e2e.traveller, "staff"],
    [e2e.forgetful, "staff"],
    [e2e.twoFactor, "staff"],
  ] as const) {
    await rt.users.create(
      { email: account.email, name: account.name, role, password: account.password },
      "e2e:setup",
    );
  }
  const checker = await rt.apiKeys.create(
    { name: "e2e REST checker", plan: "enterprise", perMinute: 100_000, perDay: 10_000_000 },
    "e2e:setup",
  );
  // An account whose owner's invitation lapsed unused (72 hours, moved in the database).
  const lapsed = await rt.accounts.create(
    { name: "Lapsed Shop", plan: "free", ownerEmail: "lapsed-owner@example.com" },
    "e2e:setup",
  );
  await databaseOf(rt).prisma.invitation.updateMany({
    where: { accountId: lapsed.id },
    data: { expiresAt: new Date(Date.now() - 60_000) },
  });
  const categories = await rt.categories.list();
  writeState({
    lapsedAccountId: lapsed.id,
    checkerKey: checker.key,
    categories: Object.fromEntries(categories.map((c) => [c.name, c.id])),
  });
  await rt.close();
  if (!process.env.E2E_DEV && process.env.E2E_SKIP_BUILD !== "1") {
    // `npm run build` so the package's prebuild step runs too.
    const build = spawnSync("npm", ["run", "build"], { cwd: appDir, env, stdio: "inherit" });
    if (build.status !== 0) throw new Error(`next build failed with status ${build.status}`);
  }
} catch (error) {
  mail.close();
  await db.drop();
  fs.rmSync(String(process.env.E2E_STATE_FILE), { force: true });
  throw error;
}

const server = process.env.E2E_DEV
  ? spawn(process.execPath, ["--import", "tsx", "server.ts", "--dev"], {
      cwd: appDir,
      env,
      stdio: "inherit",
    })
  : spawn(process.execPath, ["dist/server.js"], { cwd: appDir, env, stdio: "inherit" });
let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  if (server.exitCode === null) {
    server.kill("SIGTERM");
    const killer = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await new Promise((resolve) => server.once("exit", resolve));
    clearTimeout(killer);
  }
  mail.close();
  await db.drop().catch((error: unknown) => console.error("could not drop the e2e database", error));
  fs.rmSync(String(process.env.E2E_STATE_FILE), { force: true });
  process.exit(code);
};
process.on("SIGTERM", () => void stop(0));
process.on("SIGINT", () => void stop(0));
server.on("exit", (code) => void stop(code ?? 1));
