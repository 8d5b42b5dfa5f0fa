/**
 * `petstore usage export` (docs/contract.md section 7, "Usage for billing"), called in this process (`main`)
 * against a migrated PostgreSQL database: per account and UTC month, requests by operation and outcome, as JSON
 * (core's export) or CSV (the dashboard download's format), every account without --account; bad input exits 2.
 */
import { loadConfig } from "@petstore/config";
import { openRuntime, type Runtime } from "@petstore/core";
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorBodyOf, petstore } from "./support.ts";

describe("petstore usage export on PostgreSQL", () => {
  let db: TemporaryDatabase;
  let env: Record<string, string>;
  let rt: Runtime;
  let accountId: string;
  beforeAll(async () => {
    db = await createMigratedDatabase("petstore_cli_usage");
    env = { DATABASE_URL: db.url };
    rt = await openRuntime({ config: loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: "silent" }) });
    const account = await rt.accounts.create(
      { name: "=Formula Feeds", plan: "pro", ownerEmail: "owner@formula.example" },
      "test",
    );
    accountId = account.id;
    const key = await rt.apiKeys.createInAccount(account.id, { name: "till" }, "test");
    const record = (at: string, n: number, outcome: "2xx" | "4xx", status: number) => {
      for (let i = 0; i < n; i++)
        rt.analytics?.record({
          keyId: key.id,
          operation: "listPets",
          outcome,
          status,
          durationMs: 1,
          at: Date.parse(at),
          clientIp: "192.0.2.1",
          requestId: `r${i}`,
        });
    };
    record("2025-07-31T23:59:59.000Z", 3, "2xx", 200);
    record("2025-07-15T10:00:00.000Z", 2, "4xx", 404);
    record("2025-08-01T00:00:00.000Z", 5, "2xx", 200);
    await rt.analytics?.flush();
  });
  afterAll(async () => {
    await rt?.close();
    await db?.drop();
  });

  it("prints the month as JSON and as CSV, equal to the account's usage", async () => {
    const json = await petstore(["usage", "export", "--month", "2025-07", "--format", "json"], env);
    expect(json.code).toBe(0);
    expect(json.stderr).toBe("");
    const exported = JSON.parse(json.stdout);
    expect(exported).toMatchObject({ month: "2025-07", final: true });
    expect(exported.rows).toEqual([
      {
        accountId,
        accountName: "=Formula Feeds",
        month: "2025-07",
        operation: "listPets",
        outcome: "2xx",
        requests: 3,
      },
      {
        accountId,
        accountName: "=Formula Feeds",
        month: "2025-07",
        operation: "listPets",
        outcome: "4xx",
        requests: 2,
      },
    ]);
    expect(exported).toEqual(await rt.usage.billing("2025-07"));

    const csv = await petstore(["usage", "export", "--month", "2025-08", "--account", accountId], env);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toContain("\r\n");
    expect(Papa.parse(csv.stdout.trimEnd()).data).toEqual([
      ["account id", "account name", "month", "operation", "outcome", "requests"],
      // A name a spreadsheet would run as a formula stays text.
      [accountId, "'=Formula Feeds", "2025-08", "listPets", "2xx", "5"],
    ]);
  });

  it("refuses a bad month, format or account id with exit code 2, and an unknown account with 1", async () => {
    expect((await petstore(["usage", "export", "--month", "2025-13"], env)).code).toBe(2);
    expect((await petstore(["usage", "export", "--month", "2025-07", "--format", "xml"], env)).code).toBe(2);
    expect((await petstore(["usage", "export"], env)).code).toBe(2);
    expect((await petstore(["usage", "export", "--month", "2025-07", "--account", "nope"], env)).code).toBe(
      2,
    );
    const unknown = await petstore(
      [
        "usage",
        "export",
        "--month",
        "2025-07",
        "--account",
        "00000000-0000-4000-8000-000000000000",
        "--json",
      ],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(errorBodyOf(unknown)).toMatchObject({ code: "not_found", status: 404 });
  });
});
