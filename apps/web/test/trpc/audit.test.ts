import { databaseOf } from "@petstore/core/testing";
import Papa from "papaparse";
import { beforeAll, describe, expect, it } from "vitest";
import { auditExportResponse } from "../../src/server/audit-export";
import { SESSION_COOKIE } from "../../src/server/trpc/cookies";
import { appRouter } from "../../src/server/trpc/router";
import { type Caller, categoryId, expectTrpcError, useHarness } from "./support";

describe("audit procedures (admin)", () => {
  const h = useHarness();
  let admin: Caller;
  let staff: Caller;
  let adminToken: string;
  let staffToken: string;
  let petId: number;
  /** GET /api/audit/export with `filter` as query parameters, signed in with `token`. */
  const exportCsv = (token: string, filter: Record<string, string>) =>
    auditExportResponse(
      h.rt,
      new Request(`http://dashboard.test/api/audit/export?${new URLSearchParams(filter)}`, {
        headers: { cookie: `${SESSION_COOKIE}=${token}` },
      }),
    );
  beforeAll(async () => {
    ({ caller: admin, token: adminToken } = await h.signedIn("admin@example.com"));
    ({ caller: staff, token: staffToken } = await h.signedIn("staff@example.com"));
    const dogs = await categoryId(h.rt, "dogs");
    petId = (await staff.pets.create({ name: "Audited", categoryId: dogs })).id;
    await staff.pets.update({ id: petId, name: "Audited twice" });
    await admin.apiKeys.create({ name: "Audited key", plan: "free" });
  });

  it("lists changes newest first with who, what, when, before and after", async () => {
    const { rows, total } = await admin.audit.list({});
    expect(total).toBeGreaterThanOrEqual(5);
    expect(rows[0]).toMatchObject({
      actor: "user:admin@example.com",
      action: "apiKey.create",
      entityType: "apiKey",
    });
    const update = rows.find((r) => r.action === "pet.update");
    expect(update).toMatchObject({
      actor: "user:staff@example.com",
      entityType: "pet",
      entityId: String(petId),
    });
    expect(update?.before).toMatchObject({ name: "Audited" });
    expect(update?.after).toMatchObject({ name: "Audited twice" });
    expect(new Date(update?.at ?? "").getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(rows)).not.toMatch(/"hash"|passwordHash/);
  });

  it("filters by actor and by entity, with paging", async () => {
    const byStaff = await admin.audit.list({ actor: "user:staff@example.com" });
    // Signing in is on the record too.
    expect(byStaff.rows.map((r) => r.action)).toEqual(["pet.update", "pet.create", "session.signIn"]);
    const byEntity = await admin.audit.list({ entityType: "pet", entityId: String(petId) });
    expect(byEntity.total).toBe(2);
    const page2 = await admin.audit.list({ pageSize: 1, page: 2 });
    expect(page2.rows).toHaveLength(1);
    expect(await admin.audit.actors()).toEqual(
      expect.arrayContaining([
        { actor: "user:admin@example.com", label: "Ada Admin <admin@example.com>" },
        { actor: "user:staff@example.com", label: "Sam Staff <staff@example.com>" },
        { actor: "test", label: "test" },
      ]),
    );
    await expectTrpcError(admin.audit.list({ entityType: "planet" as never }), "BAD_REQUEST");
  });

  it("offers no way to change or delete entries", () => {
    const procedures = Object.keys(appRouter._def.procedures).filter((p) => p.startsWith("audit."));
    expect(procedures.sort()).toEqual(["audit.actors", "audit.list"]);
  });

  it("shows the entity's name beside its id, and the recorded name once it is deleted", async () => {
    const { rows } = await admin.audit.list({ entityType: "pet", entityId: String(petId) });
    expect(rows.map((r) => r.entityName)).toEqual(["Audited twice", "Audited twice"]);
    const key = (await admin.audit.list({ entityType: "apiKey" })).rows[0];
    expect(key?.entityName).toMatch(/^Audited key \(pet_test_.{3}…\)$/);
    const users = await admin.audit.list({ entityType: "user", actor: "test" });
    expect(users.rows.map((r) => r.entityName).sort()).toEqual([
      "Ada Admin <admin@example.com>",
      "Sam Staff <staff@example.com>",
    ]);
    const gone = await staff.pets.create({ name: "Short stay", categoryId: await categoryId(h.rt, "cats") });
    await staff.pets.remove({ id: gone.id });
    const removed = await admin.audit.list({ entityType: "pet", entityId: String(gone.id) });
    expect(removed.rows.map((r) => [r.action, r.entityName])).toEqual([
      ["pet.delete", "Short stay"],
      ["pet.create", "Short stay"],
    ]);
    const account = await admin.accounts.create({
      name: "Audited account",
      plan: "free",
      ownerEmail: "owner@audited.test",
    });
    await admin.accounts.setSuspended({ id: account.id, suspended: true });
    const accountRows = await admin.audit.list({ entityType: "account", entityId: account.id });
    expect(accountRows.rows.map((r) => [r.action, r.entityName])).toEqual([
      ["account.suspend", "Audited account"],
      ["account.create", "Audited account"],
    ]);
  });

  it("filters by a time range [from, to)", async () => {
    const all = await admin.audit.list({ pageSize: 100 });
    const newest = all.rows[0];
    const oldest = all.rows.at(-1);
    if (!newest || !oldest) throw new Error("no entries");
    const inRange = await admin.audit.list({ from: oldest.at, to: newest.at, pageSize: 100 });
    expect(inRange.rows.every((r) => r.at >= oldest.at && r.at < newest.at)).toBe(true);
    expect(inRange.rows.some((r) => r.id === newest.id)).toBe(false);
    expect(
      (await admin.audit.list({ from: "2000-01-01T00:00:00.000Z", to: "2000-01-02T00:00:00.000Z" })).total,
    ).toBe(0);
    const backwards = await expectTrpcError(
      admin.audit.list({ from: "2030-01-02T00:00:00.000Z", to: "2030-01-01T00:00:00.000Z" }),
      "BAD_REQUEST",
    );
    expect(backwards.message).toMatch(/to/);
    await expectTrpcError(admin.audit.list({ from: "yesterday" }), "BAD_REQUEST");
  });

  it("exports the filtered log as CSV that quotes correctly and defuses formulas", async () => {
    const dogs = await categoryId(h.rt, "dogs");
    const evil = await staff.pets.create({ name: '=HYPERLINK("http://x","a, "b"")', categoryId: dogs });
    const response = await exportCsv(adminToken, { entityType: "pet", entityId: String(evil.id) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.csv"$/,
    );
    const csv = await response.text();
    const parsed = Papa.parse<string[]>(csv, { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toHaveLength(2);
    expect(parsed.data[0]).toEqual([
      "id",
      "time (UTC)",
      "actor",
      "action",
      "entity type",
      "entity id",
      "entity name",
      "before",
      "after",
    ]);
    const row = parsed.data[1] ?? [];
    expect(row.slice(2, 6)).toEqual(["user:staff@example.com", "pet.create", "pet", String(evil.id)]);
    // The name is kept whole, but a spreadsheet reads it as text, not as a formula.
    expect(row[6]).toBe(`'=HYPERLINK("http://x","a, "b"")`);
    expect(JSON.parse(row[8] ?? "")).toMatchObject({ name: '=HYPERLINK("http://x","a, "b"")' });
    expect(csv.split("\r\n")[0]).toBe(
      '"id","time (UTC)","actor","action","entity type","entity id","entity name","before","after"',
    );
    expect(csv.endsWith("\r\n")).toBe(true);
    // Without filters: everything, newest first.
    const everything = Papa.parse<string[]>(await (await exportCsv(adminToken, {})).text(), {
      skipEmptyLines: true,
    });
    const listed = await admin.audit.list({ pageSize: 100 });
    expect(everything.data.slice(1).map((r) => Number(r[0]))).toEqual(listed.rows.map((r) => r.id));
  });

  it("exports only to admins, and refuses a bad filter with the fields named", async () => {
    const anonymous = await auditExportResponse(h.rt, new Request("http://dashboard.test/api/audit/export"));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: "unauthorized", status: 401 });
    const asStaff = await exportCsv(staffToken, {});
    expect(asStaff.status).toBe(403);
    expect(await asStaff.json()).toMatchObject({ code: "forbidden", status: 403 });
    const bad = await exportCsv(adminToken, { action: "pet.explode", from: "yesterday" });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { code: string; details: { path: string }[] };
    expect(body.code).toBe("validation_failed");
    expect(body.details.map((d) => d.path).sort()).toEqual(["action", "from"]);
  });

  it("filters by action, and refuses an action the log does not record", async () => {
    const updates = await admin.audit.list({ action: "pet.update" });
    expect(updates.rows.length).toBeGreaterThan(0);
    expect(updates.rows.every((r) => r.action === "pet.update")).toBe(true);
    expect(updates).toMatchObject({ total: updates.rows.length, totalExact: true });
    const error = await expectTrpcError(admin.audit.list({ action: "pet.explode" as never }), "BAD_REQUEST");
    expect(error.message).toMatch(/action/);
  });

  it("streams an export of more than 10,000 entries completely, in batches", async () => {
    const prisma = databaseOf(h.rt).prisma;
    await prisma.$executeRawUnsafe(
      `INSERT INTO "AuditLog" ("at", "actor", "action", "entityType", "entityId", "before", "after")
       SELECT now() - (12345 - i) * interval '1 second', 'cli:bulk', 'pet.update', 'pet', '${petId}',
              jsonb_build_object('name', 'before ' || i), jsonb_build_object('name', '=after, "' || i || '"')
       FROM generate_series(1, 12345) AS i`,
    );
    const response = await exportCsv(adminToken, { actor: "cli:bulk", action: "pet.update" });
    expect(response.status).toBe(200);
    let chunks = 0;
    let csv = "";
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) {
      chunks++;
      csv += decoder.decode(chunk, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const parsed = Papa.parse<string[]>(csv, { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const rows = parsed.data.slice(1);
    expect(rows).toHaveLength(12_345);
    const expectedIds = (
      await prisma.auditLog.findMany({
        where: { actor: "cli:bulk" },
        orderBy: { id: "desc" },
        select: { id: true },
      })
    ).map((r) => String(r.id));
    expect(rows.map((r) => r[0])).toEqual(expectedIds);
    expect(rows[0]?.slice(2, 7)).toEqual(["cli:bulk", "pet.update", "pet", String(petId), "Audited twice"]);
    expect(JSON.parse(rows[0]?.[8] ?? "")).toEqual({ name: '=after, "12345"' });
    expect(JSON.parse(rows.at(-1)?.[7] ?? "")).toEqual({ name: "before 1" });
  });
});
