/**
 * Every animal the table's filters match, at once (docs/contract.md section 4 "Animals"): the status change by
 * filter is bounded and audited per animal, its undo puts the statuses back, a held animal refuses it whole, a
 * member of an account is refused; the CSV of the filtered view is the table's rows, for staff, and bounded.
 */
import { MAX_ANIMALS_CSV, MAX_BULK_STATUS } from "@petstore/contracts";
import { databaseOf } from "@petstore/core/testing";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANIMALS_CSV, animalsExportResponse } from "../../src/server/animals-export";
import { SESSION_COOKIE } from "../../src/server/trpc/cookies";
import {
  type Caller,
  categoryId,
  createTestAccount,
  expectTrpcError,
  type Harness,
  openHarness,
  shapeOf,
} from "./support";

describe("animals by filter (staff)", () => {
  let h: Harness;
  let staff: Caller;
  let staffToken: string;
  let member: Caller;
  let category: number;
  const prisma = () => databaseOf(h.rt).prisma;
  const statuses = async (ids: number[]) =>
    (await prisma().pet.findMany({ where: { id: { in: ids.map(BigInt) } }, orderBy: { id: "asc" } })).map(
      (p) => p.status,
    );
  const download = (query: Record<string, string>, token = staffToken) =>
    animalsExportResponse(
      h.rt,
      new Request(`http://dashboard.test/api/animals/export?${new URLSearchParams(query)}`, {
        headers: { cookie: `${SESSION_COOKIE}=${token}` },
      }),
    );

  beforeAll(async () => {
    h = await openHarness();
    ({ caller: staff, token: staffToken } = await h.signedIn("staff@example.com"));
    const account = await createTestAccount(h.rt, "Bulk Shop", "pro");
    member = (await h.signedIn(account.ownerEmail)).caller;
    category = (await staff.categories.create({ name: "bulk-ferrets" })).id;
  });
  afterAll(() => h?.close());

  it("sets every matching animal across pages, audits each, and its undo puts the statuses back", async () => {
    const made = [];
    for (const [i, status] of (["available", "sold", null, "available", "sold"] as const).entries())
      made.push(
        await staff.pets.create({ name: `Ferret ${i}`, categoryId: category, ...(status ? { status } : {}) }),
      );
    const ids = made.map((p) => p.id);
    const before = await statuses(ids);
    const other = await staff.pets.search({ pageSize: 100, status: "available" });

    const changed = await staff.pets.setStatusMatching({
      filter: { categoryId: category },
      status: "pending",
    });
    expect(changed.updated).toBe(5);
    expect(await statuses(ids)).toEqual(["pending", "pending", "pending", "pending", "pending"]);
    // Animals outside the filter are untouched.
    const still = await staff.pets.search({ pageSize: 100, status: "available" });
    expect(still.total).toBe(other.total - 2);
    const audits = await prisma().auditLog.findMany({
      where: { action: "pet.setStatus", entityId: { in: ids.map(String) } },
    });
    expect(audits).toHaveLength(5);
    expect(audits.every((a) => a.actor === "user:staff@example.com")).toBe(true);

    const undone = await staff.pets.restoreStatus({ previous: changed.previous, from: "pending" });
    expect(undone).toEqual({ restored: 5, skipped: 0 });
    expect(await statuses(ids)).toEqual(before);
  });

  it("refuses a filter matching more than the bound and sets nothing", async () => {
    const available = await staff.pets.search({ status: "available" });
    const catId = await categoryId(h.rt, "dogs");
    const names = Array.from({ length: MAX_BULK_STATUS + 1 - available.total + 1 }, (_, i) => `Many ${i}`);
    await prisma().pet.createMany({
      data: names.map((name) => ({ name, categoryId: BigInt(catId), status: "available" as const })),
    });
    const error = await expectTrpcError(
      staff.pets.setStatusMatching({ filter: { status: "available" }, status: "sold" }),
      "BAD_REQUEST",
    );
    expect(shapeOf(error).message).toMatch(/^More than 1,000 animals match: narrow the filters/);
    expect(await prisma().pet.count({ where: { status: "sold", name: { startsWith: "Many " } } })).toBe(0);
    // A narrower filter passes.
    const narrow = await staff.pets.setStatusMatching({ filter: { query: "Many 1" }, status: "sold" });
    expect(narrow.updated).toBeGreaterThan(0);
    expect(narrow.updated).toBeLessThanOrEqual(MAX_BULK_STATUS);
  });

  it("refuses it whole when a placed order holds a matching animal, saying which", async () => {
    const held = await staff.pets.create({ name: "Held Otter", categoryId: category, status: "pending" });
    await prisma().pet.update({ where: { id: BigInt(held.id) }, data: { status: "available" } });
    const account = await createTestAccount(h.rt, "Hold Shop", "pro");
    const key = await h.rt.apiKeys.createInAccount(account.id, { name: "till" }, "test");
    const order = await h.rt.orders
      .of({ accountId: account.id })
      .create({ petId: held.id }, { apiKeyId: key.id });
    const error = await expectTrpcError(
      staff.pets.setStatusMatching({ filter: { query: "Held Otter" }, status: "sold" }),
      "CONFLICT",
    );
    expect(shapeOf(error).message).toBe(
      `Animal ${held.id} is held by order ${order.id}: complete or cancel the order first.`,
    );
    expect(await statuses([held.id])).toEqual(["pending"]);
  });

  it("is refused to a member of an account", async () => {
    await expectTrpcError(
      member.pets.setStatusMatching({ filter: { categoryId: category }, status: "sold" }),
      "FORBIDDEN",
    );
  });

  it("downloads the filtered view in its order as CSV for staff, bounded", async () => {
    const answer = await download({ categoryId: String(category), sortBy: "name", sortDirection: "desc" });
    expect(answer.status).toBe(200);
    const [header, ...rows] = Papa.parse<string[]>((await answer.text()).trimEnd()).data;
    expect(header).toEqual([...ANIMALS_CSV.columns]);
    const names = rows.map((r) => r[1]);
    expect(names).toEqual(["Held Otter", "Ferret 4", "Ferret 3", "Ferret 2", "Ferret 1", "Ferret 0"]);
    expect(rows.map((r) => r[4])).toEqual(["pending", "sold", "available", "", "sold", "available"]);
    expect(rows.every((r) => r[3] === "bulk-ferrets")).toBe(true);

    // Read a few at a time, the batches meet end to end in the table's order, names tied broken by id.
    for (const twin of ["Twin", "Twin"]) await staff.pets.create({ name: twin, categoryId: category });
    for (const sortDirection of ["asc", "desc"] as const) {
      const view = { categoryId: category, sortBy: "name", sortDirection } as const;
      const batched: number[] = [];
      for await (const batch of h.rt.pets.exportBatches(view, 2)) batched.push(...batch.map((p) => p.id));
      const table = await staff.pets.search({ ...view, pageSize: 100 });
      expect(batched).toEqual(table.rows.map((p) => p.id));
    }

    const bad = await download({ categoryId: "x" });
    expect(bad.status).toBe(400);
    await prisma().$executeRaw`
      INSERT INTO "Pet" ("name", "categoryId", "updatedAt")
      SELECT 'Bulk ' || i, ${BigInt(category)}, now() FROM generate_series(1, ${MAX_ANIMALS_CSV + 1}) AS i`;
    const tooMany = await download({ categoryId: String(category) });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).message).toMatch(/^More than 10,000 animals match/);
  });
});
