/**
 * A dashboard instance yields the CPU to API instances on its host (docs/operations.md "Roles"): the production
 * server in the `dashboard` role runs its event loop at nice `DASHBOARD_NICE` (10 by default), an `api` instance
 * at the nice it was started with, and a dashboard instance still serves.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import {
  ensureBuild,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
} from "./production-server.ts";

/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat). */
function niceOf(pid: number | undefined): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[16]);
}

describe("CPU priority by role", () => {
  let db: PreparedDatabase;
  const servers: ProductionServer[] = [];

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase();
  }, 600_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
  });

  const start = async (env: Record<string, string>) => {
    const server = await startProductionServer(await freePort(), { DATABASE_URL: db.url, ...env });
    servers.push(server);
    return server;
  };

  it("runs a dashboard instance at nice 10, or as configured, and an API instance as started", async () => {
    const [dashboard, tuned, api] = await Promise.all([
      start({ PETSTORE_SERVE: "dashboard" }),
      start({ PETSTORE_SERVE: "dashboard", DASHBOARD_NICE: "3" }),
      start({ PETSTORE_SERVE: "api" }),
    ]);
    const own = niceOf(process.pid);
    expect(niceOf(dashboard.pid)).toBe(Math.max(own, 10));
    expect(niceOf(tuned.pid)).toBe(Math.max(own, 3));
    expect(niceOf(api.pid)).toBe(own);
    expect((await fetch(`${dashboard.baseUrl}/healthz`)).status).toBe(200);
  }, 120_000);
});
