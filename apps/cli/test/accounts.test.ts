/**
 * `petstore accounts …` as an operator runs it (docs/contract.md section 5), called in this process (`main`)
 * against a migrated PostgreSQL database: create prints `{id, invitationUrl}` once (a human line without
 * `--json`), list shows the account with its plan, state and figures (as JSON, or a table), suspend and resume
 * change its state, every change is audited under the operator's `cli:` actor, and bad input exits with 2 naming
 * the option. The invitation link is built on the deployment's origin: the command's PUBLIC_BASE_URL, else the one
 * a server of the deployment recorded, else (staging) the default with a warning; production refuses then.
 */
import os from "node:os";
import { loadConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodyOf, petstore } from "./support.ts";

const ACTOR = `cli:${os.userInfo().username}`;

describe("petstore accounts on PostgreSQL", () => {
  let db: TemporaryDatabase;
  let env: Record<string, string>;
  let rt: Runtime;
  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_cli_accounts");
    env = { DATABASE_URL: db.url, PUBLIC_BASE_URL: "https://petstore.example.test" };
    rt = await openRuntime({ config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent" }) });
  });
  afterAll(async () => {
    await rt?.close();
    await db?.drop();
  });

  /** The audit actions recorded on account `id`, oldest first, with their actors. */
  const auditOf = async (id: string) =>
    (await rt.auditLog.list({ entityType: "account", entityId: id, page: 1, pageSize: 25 })).rows
      .map((e) => ({ action: e.action, actor: e.actor }))
      .reverse();

  it("creates an account with --json as one line {id, invitationUrl}, lists, suspends and resumes it", async () => {
    const created = await petstore(
      [
        "accounts",
        "create",
        "--name",
        "Acme Pets",
        "--plan",
        "pro",
        "--owner-email",
        "owner@acme.test",
        "--json",
      ],
      env,
    );
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const account = JSON.parse(lines[0] as string);
    expect(Object.keys(account).sort()).toEqual(["id", "invitationUrl"]);
    expect(account.invitationUrl).toMatch(
      /^https:\/\/petstore\.example\.test\/portal\/invitations\/[A-Za-z0-9_-]{43}$/,
    );

    const listed = JSON.parse((await petstore(["accounts", "list", "--json"], env)).stdout);
    expect(listed.find((a: { id: string }) => a.id === account.id)).toMatchObject({
      name: "Acme Pets",
      plan: "pro",
      state: "active",
      createdBy: ACTOR,
      keys: 0,
      maxKeys: 10,
      members: 0,
      requestsToday: 0,
    });
    expect(JSON.stringify(listed)).not.toContain(account.invitationUrl);

    const suspended = await petstore(["accounts", "suspend", account.id], env);
    expect(suspended.code).toBe(0);
    expect(suspended.stdout).toContain(`Suspended Acme Pets (${account.id})`);
    const table = (await petstore(["accounts", "list"], env)).stdout;
    expect(table).toMatch(new RegExp(`'${account.id}'.*'Acme Pets'.*'pro'.*'suspended'.*'0/10'`));

    const resumed = await petstore(["accounts", "resume", account.id, "--json"], env);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ id: account.id, state: "active", suspendedAt: null });

    expect(await auditOf(account.id)).toEqual([
      { action: "account.create", actor: ACTOR },
      { action: "account.suspend", actor: ACTOR },
      { action: "account.resume", actor: ACTOR },
    ]);
  });

  it("prints the invitation link with a human line without --json", async () => {
    const created = await petstore(
      ["accounts", "create", "--name", "Shop Two", "--plan", "free", "--owner-email", "two@shop.test"],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created account Shop Two \(id [0-9a-f-]{36}, plan free\)\./);
    expect(created.stdout).toContain("two@shop.test");
    expect(created.stdout).toContain("valid 72 h, single use");
    expect(created.stdout).toMatch(/ {2}\S+\/portal\/invitations\/[A-Za-z0-9_-]{43}\n$/);
  });

  it("refuses bad input with exit code 2 naming the option, and an unknown account with 404", async () => {
    const plan = await petstore(
      ["accounts", "create", "--name", "X", "--plan", "gold", "--owner-email", "x@x.test", "--json"],
      env,
    );
    expect(plan.code).toBe(2);
    expect(errorBodyOf(plan)).toMatchObject({ code: "validation_failed", details: [{ path: "--plan" }] });
    const email = await petstore(
      ["accounts", "create", "--name", "X", "--plan", "free", "--owner-email", "nope", "--json"],
      env,
    );
    expect(email.code).toBe(2);
    expect(errorBodyOf(email)).toMatchObject({ details: [{ path: "--owner-email" }] });
    const missing = await petstore(["accounts", "create", "--name", "X"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("accounts create needs --name, --plan and --owner-email");
    const badId = await petstore(["accounts", "suspend", "not-an-id", "--json"], env);
    expect(badId.code).toBe(2);
    expect(errorBodyOf(badId)).toMatchObject({ details: [{ path: "<id>" }] });
    const unknown = await petstore(
      ["accounts", "suspend", "00000000-0000-4000-8000-000000000000", "--json"],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(errorBodyOf(unknown)).toMatchObject({ code: "not_found", status: 404 });
    const sub = await petstore(["accounts", "delete"], env);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain("Unknown accounts command: delete");
  });
});

describe("petstore accounts create: the invitation link's origin", () => {
  let db: TemporaryDatabase;
  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_cli_origin");
  });
  afterAll(() => db?.drop());

  const create = (env: Record<string, string>, name: string) =>
    petstore(
      [
        "accounts",
        "create",
        "--name",
        name,
        "--plan",
        "free",
        "--owner-email",
        `${name}@acme.test`,
        "--json",
      ],
      { DATABASE_URL: db.url, ...env },
    );
  const linkOf = (result: { stdout: string }) => JSON.parse(result.stdout).invitationUrl as string;

  it("without PUBLIC_BASE_URL and before any server start: production refuses, staging warns", async () => {
    const refused = await create({ PETSTORE_ENV: "production" }, "refused");
    expect(refused.code).toBe(2);
    expect(errorBodyOf(refused)).toMatchObject({
      code: "validation_failed",
      details: [{ path: "PUBLIC_BASE_URL" }],
    });
    const warned = await create({}, "warned");
    expect(warned.code).toBe(0);
    expect(linkOf(warned)).toMatch(/^http:\/\/localhost:3000\/portal\/invitations\//);
    expect(warned.stderr).toMatch(/PUBLIC_BASE_URL is not set .* uses http:\/\/localhost:3000/);
  });

  it("uses the origin a server recorded at its start, and the command's own PUBLIC_BASE_URL before it", async () => {
    // What server.ts does at start (bootstrap.ts), for a deployment served at https://shop.example.test.
    const server = await openRuntime({
      config: loadConfig({
        DATABASE_URL: db.url,
        PUBLIC_BASE_URL: "https://shop.example.test",
        LOG_LEVEL: "silent",
      }),
    });
    try {
      await server.recordPublicOrigin();
    } finally {
      await server.close();
    }
    const recorded = await create({ PETSTORE_ENV: "production" }, "recorded");
    expect(recorded.stderr).toBe("");
    expect(recorded.code).toBe(0);
    expect(linkOf(recorded)).toMatch(/^https:\/\/shop\.example\.test\/portal\/invitations\//);
    const own = await create({ PUBLIC_BASE_URL: "https://other.example.test" }, "own");
    expect(own.stderr).toBe("");
    expect(linkOf(own)).toMatch(/^https:\/\/other\.example\.test\/portal\/invitations\//);
  });
});
