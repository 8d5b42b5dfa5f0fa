/**
 * The production folder (docs/operations.md "The production folder", "Containers") runs with Node alone, as
 * compose.yaml runs it: a copy of it in a temporary directory outside the repository, where nothing resolves from
 * the repository's node_modules, migrates a new PostgreSQL database with its CLI (`node cli.js db migrate`, in
 * production without METRICS_TOKEN, which only a server needs) and issues an API key; then an API instance (with
 * compose's command line and environment for the `api` service) and a dashboard instance (`node server.js`) serve
 * behind the real Caddy with the repository's deploy/Caddyfile (Debian's `caddy`, which .ci/run installs): /v1,
 * the dashboard's pages, its JSON API and /docs through the one origin, /metrics not through it, and an invitation
 * link of `node cli.js accounts create` on the origin the servers recorded.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTemporaryDatabase, pollUntil, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { freePort } from "../support/common.ts";
import {
  API_ROLE,
  ensureBuild,
  PRODUCTION_FOLDER,
  runToExit,
  startProductionServer,
  WEB_DIR,
} from "./production-server.ts";

const ROOT = path.resolve(WEB_DIR, "../..");

/** compose.yaml's `api` service: its command after `node`, and the environment it adds to the common one. */
function composeApiService(): { nodeArgs: string[]; script: string; env: Record<string, string> } {
  const compose = parse(fs.readFileSync(path.join(ROOT, "compose.yaml"), "utf8"), { merge: true });
  const api = compose.services.api as { command: string[]; environment: Record<string, string> };
  const [node, ...args] = api.command;
  expect(node).toBe("node");
  return {
    nodeArgs: args.slice(0, -1),
    script: args.at(-1) as string,
    env: { MALLOC_ARENA_MAX: api.environment.MALLOC_ARENA_MAX as string },
  };
}

/** Starts Caddy with deploy/Caddyfile on `port`, in front of the two instances; resolves once it answers. */
async function startProxy(port: number, apiPort: number, dashboardPort: number): Promise<ChildProcess> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-caddy-"));
  const caddy = spawn(
    "caddy",
    ["run", "--adapter", "caddyfile", "--config", path.join(ROOT, "deploy", "Caddyfile")],
    {
      env: {
        NODE_ENV: "production",
        PATH: process.env.PATH ?? "",
        HOME: home,
        XDG_DATA_HOME: home,
        XDG_CONFIG_HOME: home,
        PETSTORE_SITE: `:${port}`,
        PETSTORE_API_HOST: "localhost",
        PETSTORE_API_PORT: String(apiPort),
        PETSTORE_DASHBOARD: `127.0.0.1:${dashboardPort}`,
      },
      stdio: "ignore",
    },
  );
  caddy.once("exit", () => fs.rmSync(home, { recursive: true, force: true }));
  const answered = await pollUntil(async () => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      await res.body?.cancel();
      return res.status === 404;
    } catch {
      return false; // not listening yet
    }
  }, 20_000);
  if (!answered) {
    caddy.kill("SIGKILL");
    throw new Error(`Caddy did not answer on port ${port} (exit code ${caddy.exitCode})`);
  }
  return caddy;
}

describe("the production folder", () => {
  let copy: string;
  let db: TemporaryDatabase;

  beforeAll(async () => {
    // The proxy of compose.yaml: Debian's package, as .ci/run installs it.
    execFileSync("caddy", ["version"]);
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    copy = fs.mkdtempSync(path.join(os.tmpdir(), "petstore-production-"));
    [db] = await Promise.all([
      createTemporaryDatabase("petstore_folder"),
      fs.promises.cp(PRODUCTION_FOLDER, copy, { recursive: true, verbatimSymlinks: true }),
    ]);
  });
  afterAll(async () => {
    await db?.drop();
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it("migrates with its CLI without METRICS_TOKEN, then serves as compose.yaml runs it: two roles behind deploy/Caddyfile", async () => {
    const env = { DATABASE_URL: db.url, LOG_LEVEL: "error", PETSTORE_ENV: "production" };
    const [migrate, help] = await Promise.all([
      runToExit(["cli.js", "db", "migrate"], copy, env, 60_000),
      runToExit(["cli.js", "help"], copy, env, 30_000),
    ]);
    expect(migrate.stderr).toBe("");
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/^Applied \d+ migration/);
    // The command names itself as it is run here, never as the repository's npm script.
    expect(help.stdout).toMatch(/^Usage: node cli\.js <command>/);
    expect(help.stdout).not.toContain("npm run");

    const [proxyPort, apiPort, dashboardPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const origin = `http://127.0.0.1:${proxyPort}`;
    const serving = {
      ...env,
      METRICS_TOKEN: "a-metrics-token-for-the-test",
      PUBLIC_BASE_URL: origin,
      TRUST_PROXY: "1",
    };
    const api = composeApiService();
    // compose.yaml's API instances run with the API role's settings (`npm run start:api`'s).
    expect(api.nodeArgs).toEqual(API_ROLE.nodeArgs);
    expect(api.env.MALLOC_ARENA_MAX).toBe(API_ROLE.env.MALLOC_ARENA_MAX);
    // The key is issued while the servers start: all three only need the migrated database.
    const args = ["cli.js", "keys", "create", "--name", "folder", "--plan", "free", "--json"];
    const [created, apiServer, dashboardServer] = await Promise.all([
      runToExit(args, copy, env, 30_000),
      startProductionServer(
        apiPort,
        { ...serving, ...api.env, PETSTORE_SERVE: "api" },
        60_000,
        api.script,
        api.nodeArgs,
        { cwd: copy },
      ),
      startProductionServer(
        dashboardPort,
        { ...serving, PETSTORE_SERVE: "dashboard" },
        60_000,
        "server.js",
        [],
        {
          cwd: copy,
        },
      ),
    ]);
    let proxy: ChildProcess | undefined;
    try {
      proxy = await startProxy(proxyPort, apiPort, dashboardPort);
      expect(created.code, created.stderr).toBe(0);
      const { key } = JSON.parse(created.stdout) as { key: string };
      expect(key).toMatch(/^pet_live_/);

      const pets = await fetch(`${origin}/v1/pets`, { headers: { authorization: `Bearer ${key}` } });
      expect(pets.status).toBe(200);
      expect(await pets.json()).toEqual([]);
      const anonymous = await fetch(`${origin}/v1/pets`);
      await anonymous.body?.cancel();
      expect(anonymous.status).toBe(401);
      // The API reference's document names the proxy's origin as this deployment's server.
      const document = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as {
        servers: { url: string }[];
      };
      expect(document.servers[0]?.url).toBe(`${origin}/v1`);

      for (const page of ["/admin/sign-in", "/portal/sign-in", "/docs"]) {
        const res = await fetch(`${origin}${page}`);
        expect(res.status, page).toBe(200);
        expect(res.headers.get("content-type"), page).toMatch(/^text\/html/);
        expect(await res.text(), page).toMatch(/^<!DOCTYPE html>/i);
      }
      // The API reference's policy names this deployment's origin, so no shared cache may keep the page.
      const docs = await fetch(`${origin}/docs`);
      await docs.body?.cancel();
      expect(docs.headers.get("cache-control")).toBe("no-cache");
      expect(docs.headers.get("content-security-policy")).toContain(`connect-src 'self' ${origin}`);
      const me = await fetch(`${origin}/api/trpc/auth.me`);
      expect(me.status).toBe(200);
      await me.arrayBuffer();
      // Metrics are scraped from each instance, never through the proxy.
      const metrics = await fetch(`${origin}/metrics`);
      await metrics.body?.cancel();
      expect(metrics.status).toBe(404);

      // The servers recorded their origin: the command builds the invitation link on it without PUBLIC_BASE_URL.
      const account = await runToExit(
        [
          "cli.js",
          "accounts",
          "create",
          "--name",
          "Acme",
          "--plan",
          "free",
          "--owner-email",
          "o@acme.test",
          "--json",
        ],
        copy,
        env,
        30_000,
      );
      expect(account.stderr).toBe("");
      const { invitationUrl } = JSON.parse(account.stdout) as { invitationUrl: string };
      expect(invitationUrl.startsWith(`${origin}/portal/invitations/`)).toBe(true);
      const invitation = await fetch(invitationUrl);
      await invitation.body?.cancel();
      expect(invitation.status).toBe(200);
    } finally {
      proxy?.kill("SIGTERM");
      await Promise.all([apiServer.stop(), dashboardServer.stop()]);
    }
  });
});
