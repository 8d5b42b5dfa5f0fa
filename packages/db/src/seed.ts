/**
 * Reference and demo data. `ensurePlans` creates the four rate-limit plans; `seedDatabase` also creates the
 * pet categories and, on an empty Pet table only, a set of demo pets. Both are idempotent and never
 * overwrite rows that exist (plan limits are editable by admins), and both hold a transaction-scoped
 * advisory lock so concurrent seeds (two app instances starting) do not race.
 */
import type { PetStatus, PlanName, PrismaClient } from "./generated/prisma/client.ts";

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** Default limits per plan (requests per minute / per day); enterprise limits are set per API key. */
export const DEFAULT_PLANS: ReadonlyArray<{
  name: PlanName;
  perMinute: number | null;
  perDay: number | null;
  /** Live keys a consumer account on the plan may hold (null: no cap). */
  maxKeys: number | null;
}> = [
  { name: "free", perMinute: 60, perDay: 1000, maxKeys: 3 },
  { name: "pro", perMinute: 300, perDay: 10000, maxKeys: 10 },
  { name: "business", perMinute: 1000, perDay: 100000, maxKeys: 25 },
  { name: "enterprise", perMinute: null, perDay: null, maxKeys: null },
];

/** Pet categories, by name. */
export const DEFAULT_CATEGORIES = ["dogs", "cats", "birds", "fish", "reptiles", "small mammals"] as const;

const DEMO_PETS: Record<(typeof DEFAULT_CATEGORIES)[number], string[]> = {
  dogs: ["Rex", "Bella", "Max", "Luna", "Charlie", "Daisy"],
  cats: ["Milo", "Cleo", "Oliver", "Nala", "Simba", "Tigger"],
  birds: ["Kiwi", "Sunny", "Pip", "Rio", "Blue", "Mango"],
  fish: ["Nemo", "Dory", "Bubbles", "Finn", "Goldie", "Splash"],
  reptiles: ["Spike", "Rango", "Shelly", "Iggy", "Draco", "Slinky"],
  "small mammals": ["Peanut", "Hazel", "Biscuit", "Clover", "Nibbles", "Pepper"],
};

/** How many demo pets `seedDatabase` adds to an empty Pet table. */
export const DEMO_PET_COUNT = Object.values(DEMO_PETS).reduce((n, names) => n + names.length, 0);

/** Status cycle for the demo pets: mostly available, some pending, sold, or without a status. */
const STATUS_CYCLE: Array<PetStatus | null> = [
  "available",
  "available",
  "pending",
  "sold",
  null,
  "available",
];

/** Arbitrary constant key for pg_advisory_xact_lock, shared by every seeding call. */
const SEED_LOCK_KEY = 7_270_736_901;

async function lockSeeding(tx: Tx): Promise<void> {
  // $executeRaw: the function returns `void`, a type the query adapters cannot map in a result set.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY}::bigint)`;
}

async function upsertPlans(tx: Tx): Promise<void> {
  for (const plan of DEFAULT_PLANS) {
    await tx.plan.upsert({ where: { name: plan.name }, create: plan, update: {} });
  }
}

/**
 * Creates the four plans (free 60/1000, pro 300/10000, business 1000/100000, enterprise unlimited at
 * plan level) when missing; existing plans keep their (possibly edited) limits.
 * @throws Prisma errors when the tables do not exist (migrations not deployed).
 */
export async function ensurePlans(prisma: PrismaClient): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await lockSeeding(tx);
    await upsertPlans(tx);
  });
}

/** Row counts after seeding, and how many demo pets this call created (0 when pets already existed). */
export interface SeedResult {
  plans: number;
  categories: number;
  pets: number;
  petsCreated: number;
}

/**
 * Ensures the plans and the six categories exist, then adds 36 demo pets (6 per category, mixed statuses,
 * some without a status) if and only if the Pet table is empty. Running it again changes nothing.
 * @throws Prisma errors when the tables do not exist (migrations not deployed).
 */
export async function seedDatabase(prisma: PrismaClient): Promise<SeedResult> {
  return prisma.$transaction(
    async (tx) => {
      await lockSeeding(tx);
      await upsertPlans(tx);
      const categoryIds = new Map<string, bigint>();
      for (const name of DEFAULT_CATEGORIES) {
        const category = await tx.category.upsert({ where: { name }, create: { name }, update: {} });
        categoryIds.set(name, category.id);
      }
      let petsCreated = 0;
      if ((await tx.pet.count()) === 0) {
        let i = 0;
        const data = Object.entries(DEMO_PETS).flatMap(([category, names]) =>
          names.map((name) => ({
            name,
            categoryId: categoryIds.get(category) as bigint,
            status: STATUS_CYCLE[i++ % STATUS_CYCLE.length] ?? null,
          })),
        );
        petsCreated = (await tx.pet.createMany({ data })).count;
      }
      return {
        plans: await tx.plan.count(),
        categories: await tx.category.count(),
        pets: await tx.pet.count(),
        petsCreated,
      };
    },
    { timeout: 30_000 },
  );
}
