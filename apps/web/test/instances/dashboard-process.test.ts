/**
 * The dashboard's Next.js in a supervised child process of the production server (`node dist/server.js`, role
 * `all`; docs/architecture.md "One process, one runtime"): the pages come from a process of their own, at nice
 * `DASHBOARD_NICE`, while the server itself answers /v1 and the dashboard's tRPC API; a signed-in page works
 * (the child asks the server whose session it is); a killed child means a styled 503 with Retry-After for pages
 * (and never for /v1) until the server has restarted it; SIGTERM of the server stops the child with it, and a
 * server killed outright leaves no child behind; the socket folder of a server killed with its whole process group
 * is removed by the next server's start.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eventually } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, PASSWORD } from "../support/common.ts";
import { sessionCookie, signIn } from "../support/http-calls.ts";
import {
  childProcessesOf,
  ensureBuild,
  isRunning,
  niceOf,
  type PreparedDatabase,
  type ProductionServer,
  prepareDatabase,
  startProductionServer,
} from "./production-server.ts";

const EMAIL = "admin@dashboard-process.test";

/** The one child process of `server` (the dashboard's Next.js). */
function dashboardProcessOf(server: ProductionServer): number {
  const children = childProcessesOf(server.pid);
  expect(children).toHaveLength(1);
  return children[0] as number;
}

describe("the dashboard process of the production server (role all)", () => {
  let db: PreparedDatabase;
  let server: ProductionServer;
  const started: ProductionServer[] = [];
  let key: string;
  let cookie: string;

  const start = async () => {
    const port = await freePort();
    const s = await startProductionServer(port, {
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DASHBOARD_NICE: "7",
      PASSWORD_HASH_COST: "10",
      // Requests without a session are the subject elsewhere (hardening/anonymous-floods.test.ts): here a sign-in
      // and a few anonymous pages on a busy machine must not use up their time share and be answered 429.
      DASHBOARD_ANONYMOUS_SHARE: "1000",
    });
    started.push(s);
    return s;
  };
  const page = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${path}`, { headers: { accept: "text/html", ...headers }, redirect: "manual" });
  const pets = () =>
    fetch(`${server.baseUrl}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await prepareDatabase("petstore_dashboard_process");
    key = (
      await db.rt.apiKeys.create(
        { name: "dashboard-process", plan: "enterprise", perMinute: 10_000, perDay: 100_000 },
        "t",
      )
    ).key;
    await db.rt.users.create({ email: EMAIL, name: "Ada", role: "admin", password: PASSWORD }, "t");
    server = await start();
    cookie = sessionCookie(await signIn(server, EMAIL));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    await db?.drop();
  });

  it("serves pages from a child process at DASHBOARD_NICE, and /v1 and tRPC itself", async () => {
    const child = dashboardProcessOf(server);
    expect(child).not.toBe(server.pid);
    const own = niceOf(process.pid);
    expect(niceOf(child)).toBe(Math.max(own, 7));
    expect(niceOf(server.pid)).toBe(own);

    const signedIn = await page("/admin/animals", { cookie });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await signedIn.text()).toContain("Ada");
    // Without a session the page sends the browser to the sign-in page.
    const anonymous = await page("/admin/animals");
    expect([303, 307]).toContain(anonymous.status);
    expect(anonymous.headers.get("location")).toContain("/admin/sign-in");

    const me = await fetch(`${server.baseUrl}/api/trpc/auth.me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(JSON.stringify(await me.json())).toContain(EMAIL);
    expect((await pets()).status).toBe(200);
  });

  it("answers pages 503 with Retry-After while a killed child is restarted, /v1 meanwhile, then serves again", async () => {
    const child = dashboardProcessOf(server);
    process.kill(child, "SIGKILL");
    const refused = await page("/admin/sign-in");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await refused.text()).toContain("temporarily unavailable");
    const trpcRefused = await fetch(`${server.baseUrl}/api/trpc/auth.me`, { headers: { cookie } });
    expect(trpcRefused.status).toBe(200);
    expect((await pets()).status).toBe(200);

    await eventually(async () => expect((await page("/admin/sign-in")).status).toBe(200), 120_000);
    const successor = dashboardProcessOf(server);
    expect(successor).not.toBe(child);
    expect(niceOf(successor)).toBe(Math.max(niceOf(process.pid), 7));
    expect(server.output()).toMatch(/dashboard process exited; restarting it/);
  }, 180_000);

  it("stops the child on SIGTERM of the server", async () => {
    const child = dashboardProcessOf(server);
    server.signal("SIGTERM");
    // The server's last output names what made a stop fail.
    expect(await server.exited, server.output().slice(-4000)).toBe(0);
    await eventually(async () => expect(isRunning(child)).toBe(false), 10_000);
  }, 60_000);

  it("leaves no child running when the server is killed outright, and removes a socket folder a killed group left", async () => {
    // What a SIGKILL of a server's whole process group leaves: its socket folder, named after its pid.
    const dead = spawnSync("true").pid as number;
    const stale = fs.mkdtempSync(path.join(os.tmpdir(), `petstore-dashboard-${dead}-`));
    fs.writeFileSync(path.join(stale, "next.sock"), "");
    const killed = await start();
    expect(fs.existsSync(stale)).toBe(false);
    const child = dashboardProcessOf(killed);
    killed.signal("SIGKILL");
    await killed.exited;
    await eventually(async () => expect(isRunning(child)).toBe(false), 10_000);
  }, 300_000);
});
