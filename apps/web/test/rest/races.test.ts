/**
 * A category deleted in the dashboard while API clients create animals in it (docs/contract.md section 4,
 * "Invariants under concurrency"), over HTTP against PostgreSQL: POST /v1/pets answers 201 or 400
 * `validation_failed` naming `categoryId` (with and without an Idempotency-Key: the batched insert and the
 * transactional one), the deletion 409 `conflict` while animals use the category; never a 500. Property-based
 * (fast-check); seeded for reproducibility (override with FC_SEED, FC_RUNS).
 */
import { createHash, randomBytes } from "node:crypto";
import { databaseOf } from "@petstore/core/testing";
import { TRPCError } from "@trpc/server";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createInnerContext } from "../../src/server/trpc/context";
import { createCaller } from "../../src/server/trpc/router";
import { propertyRuns } from "../support/common.ts";
import { type ErrorBody, useServer } from "./support.ts";

const params = propertyRuns(25, 20_301_220);

describe("createPet racing a category deletion (postgres)", () => {
  const t = useServer("postgres");
  let staff: ReturnType<typeof createCaller>;

  beforeAll(async () => {
    const prisma = databaseOf(t.s.rt).prisma;
    const user = await prisma.user.create({
      data: { email: "race-staff@example.com", name: "Race Staff", role: "staff", passwordHash: "unused" },
    });
    const token = randomBytes(32).toString("base64url");
    const now = new Date();
    await prisma.session.create({
      data: {
        tokenHash: createHash("sha256").update(token).digest("hex"),
        userId: user.id,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + 3600_000),
      },
    });
    staff = createCaller(await createInnerContext({ rt: t.s.rt, sessionToken: token }));
  });

  let categoryNumber = 0;
  it("property: POST /v1/pets answers 201 or 400, the deletion OK or 409, never 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.nat({ max: 8 }),
        async (withIdempotencyKeys, removeAfter) => {
          categoryNumber += 1;
          const category = await t.s.rt.categories.create(`REST race ${categoryNumber}`, "test");
          const creations = withIdempotencyKeys.map((withKey, i) =>
            t.create(
              { name: `Client pet ${i}`, categoryId: category.id },
              withKey ? { "idempotency-key": `race-${categoryNumber}-${i}` } : {},
            ),
          );
          // The deletion starts among the requests, after `removeAfter` of them were sent.
          await new Promise((resolve) => setTimeout(resolve, removeAfter));
          const removal = staff.categories.remove({ id: category.id }).then(
            () => "OK",
            (error: unknown) => (error instanceof TRPCError ? error.code : Promise.reject(error)),
          );
          const [removed, ...created] = await Promise.all([removal, ...creations]);
          expect(["OK", "CONFLICT"]).toContain(removed);
          for (const r of created) {
            expect([201, 400], r.text).toContain(r.status);
            if (r.status === 400) {
              const body = r.body as ErrorBody;
              expect(body.code).toBe("validation_failed");
              expect(body.details).toEqual([
                { path: "categoryId", message: `no category with id ${category.id}` },
              ]);
            }
          }
          const animals = await databaseOf(t.s.rt).prisma.pet.count({
            where: { categoryId: BigInt(category.id) },
          });
          expect(animals).toBe(created.filter((r) => r.status === 201).length);
          if (removed === "OK") expect(animals).toBe(0);
        },
      ),
      params,
    );
  });
});
