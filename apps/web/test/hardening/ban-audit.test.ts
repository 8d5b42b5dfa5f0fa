/**
 * A ban the rate limiter issues (docs/contract.md section 3) is written to the audit log with the system as actor,
 * and the REST answer agrees, over HTTP against the app served in process (in-process.ts).
 */
import { pollUntil } from "@petstore/core/testing";
import { describe, expect, it } from "vitest";
import { useInProcessApp } from "./in-process.ts";
import { ADMIN, rest, signIn, trpc } from "./support.ts";

describe("bans", () => {
  const app = useInProcessApp({ BAN_THRESHOLD: "2", BAN_BASE_SECONDS: "120" });

  it("writes a ban to the audit log with the system as actor", async () => {
    const issued = await app.db.rt.apiKeys.create(
      { name: "to be banned", plan: "enterprise", perMinute: 1, perDay: 1000 },
      "test",
    );
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${app.baseUrl}/v1/pets?limit=1`, {
        headers: { Authorization: `Bearer ${issued.key}` },
      });
      statuses.push(r.status);
    }
    expect(statuses).toContain(429);
    const token = await signIn(app, ADMIN);
    const entry = await pollUntil(async () => {
      const r = await trpc(
        app,
        "query",
        "audit.list",
        { entityType: "apiKey", entityId: issued.id },
        { token },
      );
      const rows = (
        r.body as { result: { data: { rows: { action: string; actor: string; after: unknown }[] } } }
      ).result.data.rows;
      return rows.find((row) => row.action === "apiKey.ban");
    });
    expect(entry).toMatchObject({ actor: "system", after: { level: 1, durationSeconds: 120 } });
    const until = Date.parse((entry?.after as { bannedUntil?: string } | undefined)?.bannedUntil ?? "");
    expect(until).toBeGreaterThan(Date.now() + 60_000);
    // The REST answer agrees: banned until then.
    const banned = await rest({ ...app, key: issued.key }, "/v1/pets?limit=1");
    expect((banned.body as { code: string }).code).toBe("key_banned");
  });
});
