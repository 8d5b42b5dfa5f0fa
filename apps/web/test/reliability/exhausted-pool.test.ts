/**
 * An exhausted database pool (docs/operations.md "Timeouts and limits"), in-process on the REST app
 * (test/support/harness.ts) with DATABASE_POOL_SIZE=2, DATABASE_CONNECT_TIMEOUT_MS=1000 and
 * DATABASE_STATEMENT_TIMEOUT_MS=1500: 300 creates at once are answered 201 or 503 with Retry-After, never 500,
 * and exactly the creates answered 201 are stored.
 */
import { databaseOf } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.ts";
import { timed } from "./support.ts";

describe("an exhausted pool (DATABASE_POOL_SIZE=2)", () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer("postgres", {
      env: {
        DATABASE_POOL_SIZE: "2",
        DATABASE_CONNECT_TIMEOUT_MS: "1000",
        DATABASE_STATEMENT_TIMEOUT_MS: "1500",
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("answers 503 with Retry-After to the requests it cannot serve in time, never 500", async () => {
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        timed(`${s.baseUrl}/v1/pets`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${s.key}`,
            "content-type": "application/json",
            "idempotency-key": `pool-${i}-${Date.now()}`,
          },
          body: JSON.stringify({ name: `pool ${i}`, categoryId: s.categoryIds[0] }),
        }),
      ),
    );
    const statuses = new Set(answers.map((r) => r.status));
    expect([...statuses].filter((s) => s !== 201 && s !== 503)).toEqual([]);
    for (const r of answers.filter((a) => a.status === 503)) {
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // What was answered 201 is stored, and nothing else.
    const created = answers.filter((r) => r.status === 201).length;
    const stored = await databaseOf(s.rt).prisma.pet.count({ where: { name: { startsWith: "pool " } } });
    expect(stored).toBe(created);
  });
});
