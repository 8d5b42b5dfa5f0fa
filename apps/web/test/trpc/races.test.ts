/**
 * Check-then-act races, through tRPC against PostgreSQL (docs/contract.md section 4, "Invariants under
 * concurrency"): several calls race in every run, and the database, not a count taken before a write, keeps
 * the rules. At least one active admin survives any mix of concurrent demotions and deactivations; a category
 * deleted while animals are created in it answers 409 `conflict` (or the creation 400, naming `categoryId`);
 * an animal edited while it is deleted answers 404 `not_found`. No call ever answers 500. Seeded for
 * reproducibility (override with FC_SEED, FC_RUNS).
 */
import { createHash, randomBytes } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { TRPCError } from "@trpc/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { propertyRuns } from "../support/common.ts";
import { type Caller, categoryId, useHarness } from "./support";

const params = propertyRuns(25, 20_301_219);

/**
 * The tRPC code a call ended with: `OK`, or its error code (anything else is rethrown). An unexpected error
 * carries what caused it, so that a failing run names the database error behind a 500.
 */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "OK";
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    if (error.code !== "INTERNAL_SERVER_ERROR") return error.code;
    const original = (error.cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
    return `${error.code} (${String(original?.code)}: ${String(original?.message)})`;
  }
}

describe("races answered 409/404, never 500 (PostgreSQL)", () => {
  const h = useHarness();
  const staff = h.as("staff@example.com");

  const prisma = () => databaseOf(h.rt).prisma;

  /** A caller signed in as `userId`, its session written straight to the database (no password check). */
  async function sessionOf(userId: string): Promise<Caller> {
    const token = randomBytes(32).toString("base64url");
    const now = new Date();
    await prisma().session.create({
      data: {
        tokenHash: createHash("sha256").update(token).digest("hex"),
        userId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + 3600_000),
      },
    });
    return h.withToken(token);
  }

  let userNumber = 0;
  /** `count` fresh admins, the only active admins from now on; each with a caller of their own. */
  async function onlyAdmins(count: number): Promise<{ id: string; caller: Caller }[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      userNumber += 1;
      const row = await prisma().user.create({
        data: {
          email: `race-admin-${userNumber}@example.com`,
          name: `Race Admin ${userNumber}`,
          role: "admin",
          passwordHash: "unused",
        },
      });
      ids.push(row.id);
    }
    await prisma().user.updateMany({ where: { id: { notIn: ids }, role: "admin" }, data: { role: "staff" } });
    return Promise.all(ids.map(async (id) => ({ id, caller: await sessionOf(id) })));
  }

  const activeAdmins = () => prisma().user.count({ where: { role: "admin", active: true } });

  it("two admins demoting each other at once: one succeeds, the other is refused, one admin is left", async () => {
    for (let round = 0; round < 8; round++) {
      const [a, b] = await onlyAdmins(2);
      if (!a || !b) throw new Error("no admins");
      const outcomes = await Promise.all([
        outcome(a.caller.users.setRole({ id: b.id, role: "staff" })),
        outcome(b.caller.users.setRole({ id: a.id, role: "staff" })),
      ]);
      expect(outcomes.sort()).toEqual(["CONFLICT", "OK"]);
      expect(await activeAdmins()).toBe(1);
    }
  });

  it("property: concurrent demotions and deactivations never leave no active admin", async () => {
    const operation = fc.record({
      actor: fc.nat(),
      target: fc.nat(),
      kind: fc.constantFrom("demote", "deactivate"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.array(operation, { minLength: 2, maxLength: 6 }),
        async (count, operations) => {
          const admins = await onlyAdmins(count);
          const calls = operations.map(({ actor, target, kind }) => {
            const by = admins[actor % count];
            // Somebody else: nobody may change their own role or deactivate themselves.
            const of = admins[(actor + 1 + (target % (count - 1))) % count];
            if (!by || !of) throw new Error("bad index");
            return outcome(
              kind === "demote"
                ? by.caller.users.setRole({ id: of.id, role: "staff" })
                : by.caller.users.setActive({ id: of.id, active: false }),
            );
          });
          const outcomes = await Promise.all(calls);
          for (const o of outcomes) expect(["OK", "CONFLICT"]).toContain(o);
          expect(await activeAdmins()).toBeGreaterThanOrEqual(1);
          expect(outcomes).toContain("OK");
        },
      ),
      params,
    );
  });

  it("property: editing an animal while it is deleted answers 404, never 500", async () => {
    const dogs = await categoryId(h.rt, "dogs");
    const cats = await categoryId(h.rt, "cats");
    const change = fc.oneof(
      fc.record({ kind: fc.constant("update" as const), name: fc.constantFrom("Rex", "Tom", "Bo") }),
      fc.record({ kind: fc.constant("move" as const), toCats: fc.boolean() }),
      fc.record({ kind: fc.constant("status" as const) }),
      fc.record({ kind: fc.constant("remove" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 2, maxLength: 6 }), async (changes) => {
        const pet = await h.rt.pets.create({ name: "Racer", categoryId: dogs }, "test");
        const id = Number(pet.id);
        const outcomes = await Promise.all([
          outcome(staff.pets.remove({ id })),
          ...changes.map((c) =>
            outcome(
              c.kind === "update"
                ? staff.pets.update({ id, name: c.name })
                : c.kind === "move"
                  ? staff.pets.update({ id, categoryId: c.toCats ? cats : dogs, status: "pending" })
                  : c.kind === "status"
                    ? staff.pets.setStatus({ ids: [id], status: "sold" })
                    : staff.pets.remove({ id }),
            ),
          ),
        ]);
        for (const o of outcomes) expect(["OK", "NOT_FOUND"]).toContain(o);
        const removals = [0, ...changes.flatMap((c, i) => (c.kind === "remove" ? [i + 1] : []))];
        expect(removals.filter((i) => outcomes[i] === "OK")).toHaveLength(1);
        expect(await prisma().pet.count({ where: { id: BigInt(id) } })).toBe(0);
      }),
      params,
    );
  });

  let categoryNumber = 0;
  it("property: deleting a category while animals are created in it answers 409 (or the creation 400), never 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 2 }),
        fc.boolean(),
        async (creations, removals, alreadyUsed) => {
          categoryNumber += 1;
          const category = await h.rt.categories.create(`Race category ${categoryNumber}`, "test");
          if (alreadyUsed) await h.rt.pets.create({ name: "First", categoryId: category.id }, "test");
          const outcomes = await Promise.all([
            ...Array.from({ length: removals }, () => outcome(staff.categories.remove({ id: category.id }))),
            ...Array.from({ length: creations }, (_, i) =>
              outcome(staff.pets.create({ name: `Newcomer ${i}`, categoryId: category.id })),
            ),
          ]);
          const removed = outcomes.slice(0, removals);
          const created = outcomes.slice(removals);
          for (const o of removed) expect(["OK", "CONFLICT", "NOT_FOUND"]).toContain(o);
          for (const o of created) expect(["OK", "BAD_REQUEST"]).toContain(o);
          expect(removed.filter((o) => o === "OK").length).toBeLessThanOrEqual(1);
          const exists = await prisma().category.count({ where: { id: BigInt(category.id) } });
          const pets = await prisma().pet.count({ where: { categoryId: BigInt(category.id) } });
          if (removed.includes("OK")) {
            expect(exists).toBe(0);
            expect(created).not.toContain("OK");
            expect(alreadyUsed).toBe(false);
          } else {
            expect(exists).toBe(1);
            expect(pets).toBe(created.filter((o) => o === "OK").length + (alreadyUsed ? 1 : 0));
          }
        },
      ),
      params,
    );
  });
});
