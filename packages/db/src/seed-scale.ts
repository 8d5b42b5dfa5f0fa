/**
 * The scale data set (docs/operations.md, "Measuring the dashboard at scale"): what a busy store accumulates, built
 * in bulk SQL (`INSERT ... SELECT FROM generate_series`) so that the dashboard can be measured where its
 * queries start to hurt. On top of the reference data (plans, categories) it adds:
 *
 * - `animals` animals (default 1,000,000): names from ten common pet names plus a number, so a search for one
 *   of the ten names matches a tenth of them; statuses and categories in fixed cycles;
 * - `apiKeys` API keys (default 5,000), a few of them revoked, expired, expiring or banned, all with hashes of
 *   secrets nobody knows;
 * - for `busyKeys` of them (default 500, every tenth key), hourly usage rows for the last `days` days
 *   (default 90) up to the current hour: `listPets`/`2xx` and one other operation and outcome per key and
 *   hour (a 429 stored under the window that refused it, as the API stores it), each with a latency
 *   histogram, plus the requests without a key: about 2.1 million rows, their sums over keys (UsageHourTotal)
 *   and each key's days (UsageDay);
 * - `users` dashboard users (default 20, 5 admins) whose password hash is the one given (the caller hashes a
 *   random password, so nobody can sign in as them);
 * - `auditEntries` audit entries (default 200,000) spread over the same days, by those users and `cli:ops`;
 * - the bans behind the usage: one `apiKey.ban` audit entry by `system` per busy key and UTC day with requests
 *   refused `key_banned`, at the first such hour, so that the key pages' ban counts agree with their charts.
 *
 * Then `VACUUM ANALYZE` of the tables, as after any bulk load, so plans and index-only scans are those of a
 * settled database. PostgreSQL only (the embedded PGlite would take far longer and is a development store).
 */
import type { PrismaClient } from "./generated/prisma/client.ts";
import { seedDatabase } from "./seed.ts";

export interface ScaleOptions {
  /** The instant the data set ends at (usage rows up to its hour, audit entries up to it). */
  now: Date;
  /** Stored as every scale user's password hash. */
  passwordHash: string;
  animals?: number;
  apiKeys?: number;
  busyKeys?: number;
  days?: number;
  users?: number;
  auditEntries?: number;
}

/** Rows added by `seedScaleData`, and how long it took. */
export interface ScaleSeedResult {
  animals: number;
  apiKeys: number;
  usageRows: number;
  users: number;
  auditEntries: number;
  /** The `apiKey.ban` audit entries behind the usage rows refused `key_banned`. */
  bans: number;
  seconds: number;
}

/** Names of the scale users: `scale-user-<n>@petstore.example`. */
export const scaleUserEmail = (n: number) => `scale-user-${n}@petstore.example`;

const PET_NAMES = ["Bella", "Max", "Luna", "Charlie", "Daisy", "Milo", "Coco", "Rocky", "Nala", "Oscar"];

/**
 * Adds the scale data set (see the module comment), after the reference and demo data (`seedDatabase`). Meant
 * for a new, empty database: the caller checks that.
 * @returns the rows added per table and the seconds it took.
 * @throws the database's error; rows already inserted stay (drop the database and start again).
 */
export async function seedScaleData(prisma: PrismaClient, options: ScaleOptions): Promise<ScaleSeedResult> {
  const started = performance.now();
  const o = {
    animals: 1_000_000,
    apiKeys: 5_000,
    busyKeys: 500,
    days: 90,
    users: 20,
    auditEntries: 200_000,
    ...options,
  };
  await seedDatabase(prisma);
  const now = o.now.toISOString();
  const names = `(ARRAY[${PET_NAMES.map((n) => `'${n}'`).join(",")}])`;
  // Timestamps are UTC without a zone, as Prisma stores them.
  const t0 = `($1::timestamptz AT TIME ZONE 'UTC')`;

  const animals = () =>
    prisma.$executeRawUnsafe(
      `INSERT INTO "Pet" ("name", "categoryId", "status", "createdAt", "updatedAt")
       SELECT ${names}[1 + i % 10] || ' ' || (i / 10),
              c.ids[1 + (i / 7) % cardinality(c.ids)],
              (ARRAY['available', 'available', 'pending', 'sold', NULL, 'available'])[1 + i % 6]::"PetStatus",
              ${t0} - (($2::int - i) * interval '20 seconds'),
              ${t0} - (($2::int - i) * interval '20 seconds')
       FROM generate_series(1, $2::int) AS i,
            (SELECT array_agg("id" ORDER BY "id") AS ids FROM "Category") AS c`,
      now,
      o.animals,
    );

  const apiKeys = () =>
    prisma.$executeRawUnsafe(
      `INSERT INTO "ApiKey" ("id", "hash", "prefix", "name", "planName", "environment", "perMinute", "perDay",
                             "createdBy", "createdAt", "expiresAt", "revokedAt", "lastUsedAt", "bannedUntil")
       SELECT gen_random_uuid(),
              encode(sha256(convert_to('scale-key ' || i || ' ' || gen_random_uuid(), 'UTF8')), 'hex'),
              'pet_test_' || substr(md5(i::text), 1, 3),
              'Scale client ' || i,
              p.plan::"PlanName",
              'staging',
              CASE WHEN p.plan = 'enterprise' THEN 5000 END,
              CASE WHEN p.plan = 'enterprise' THEN 2000000 END,
              'cli:ops',
              ${t0} - (($2::int - i) * interval '25 minutes'),
              CASE WHEN i % 50 = 5 THEN ${t0} - interval '1 day'
                   WHEN i % 10 = 3 THEN ${t0} + (i % 60) * interval '1 day' END,
              CASE WHEN i % 17 = 0 AND i % 10 <> 0 THEN ${t0} - interval '2 days' END,
              CASE WHEN i % 10 = 0 THEN ${t0} END,
              CASE WHEN i % 970 = 0 THEN ${t0} + interval '10 minutes' END
       FROM generate_series(1, $2::int) AS i,
            LATERAL (SELECT (ARRAY['free', 'free', 'pro', 'business', 'enterprise'])[1 + (i / 10 + i) % 5] AS plan) AS p`,
      now,
      o.apiKeys,
    );

  // Every tenth key is busy: one listPets/2xx row and one other row per hour, for `days` days.
  const usageRows = () =>
    prisma.$executeRawUnsafe(
      `WITH busy AS (
         SELECT "id", row_number() OVER (ORDER BY "createdAt", "id") AS rn
         FROM "ApiKey" WHERE "lastUsedAt" IS NOT NULL ORDER BY "createdAt", "id" LIMIT $3::int
       ),
       hours AS (
         SELECT h, row_number() OVER (ORDER BY h) AS hn
         FROM generate_series(date_trunc('hour', ${t0}) - ($2::int * 24 - 1) * interval '1 hour',
                              date_trunc('hour', ${t0}), interval '1 hour') AS h
       ),
       other(k, operation, outcome) AS (
         VALUES (0, 'getPet', '2xx'), (1, 'createPet', '2xx'), (2, 'getPet', '2xx'), (3, 'listPets', '4xx'),
                (4, 'listPets', 'rate_limited_minute'), (5, 'createPet', '4xx'), (6, 'getPet', '5xx'),
                (7, 'listPets', 'key_banned'), (8, 'getPet', 'rate_limited_day')
       )
       INSERT INTO "UsageHour" ("apiKeyId", "hour", "operation", "outcome", "requests", "latency")
       SELECT b."id", hours.h, v.operation, v.outcome, v.n,
              ARRAY[v.n / 10, v.n / 5, v.n / 3, v.n / 6, v.n - v.n / 10 - v.n / 5 - v.n / 3 - v.n / 6,
                    0, 0, 0, 0, 0, 0, 0, 0, 0]
       FROM busy AS b
       CROSS JOIN hours
       CROSS JOIN LATERAL (
         SELECT 'listPets' AS operation, '2xx' AS outcome, (5 + (b.rn * 7919 + hours.hn * 104729) % 60)::int AS n
         UNION ALL
         SELECT o.operation, o.outcome, (1 + (b.rn * 31 + hours.hn * 17) % 20)::int
         FROM other AS o WHERE o.k = (b.rn * 3 + hours.hn * 5) % 9
       ) AS v
       UNION ALL
       SELECT '00000000-0000-0000-0000-000000000000', hours.h, 'unauthenticated', '4xx', (1 + hours.hn % 9)::int,
              ARRAY[(1 + hours.hn % 9)::int, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
       FROM hours`,
      now,
      o.days,
      o.busyKeys,
    );

  // Each key's days (UsageDay), as the analytics flush keeps them.
  const usageDays = () =>
    prisma.$executeRawUnsafe(
      `INSERT INTO "UsageDay" ("apiKeyId", "day", "admitted", "getPet", "refused")
       SELECT "apiKeyId", date_trunc('day', "hour"),
              coalesce(sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx')), 0)::int,
              coalesce(sum("requests") FILTER (WHERE "outcome" IN ('2xx', '4xx', '5xx') AND "operation" = 'getPet'), 0)::int,
              coalesce(sum("requests") FILTER (WHERE "outcome" IN ('rate_limited', 'rate_limited_minute',
                'rate_limited_day', 'rate_limited_month', 'key_banned')), 0)::int
       FROM "UsageHour" GROUP BY "apiKeyId", date_trunc('day', "hour")`,
    );

  // The whole API's hourly figures (UsageHourTotal), as the analytics flush keeps them.
  const latencySums = Array.from({ length: 14 }, (_, i) => `coalesce(sum("latency"[${i + 1}]), 0)::int`);
  const usageTotals = () =>
    prisma.$executeRawUnsafe(
      `INSERT INTO "UsageHourTotal" ("hour", "operation", "outcome", "requests", "latency")
       SELECT "hour", "operation", "outcome", sum("requests")::int, ARRAY[${latencySums.join(", ")}]
       FROM "UsageHour" GROUP BY "hour", "operation", "outcome"`,
    );

  const users = () =>
    prisma.$executeRawUnsafe(
      `INSERT INTO "User" ("id", "email", "name", "role", "passwordHash", "createdAt", "updatedAt")
       SELECT gen_random_uuid(), 'scale-user-' || i || '@petstore.example', 'Scale user ' || i,
              (CASE WHEN i <= 5 THEN 'admin' ELSE 'staff' END)::"UserRole", $2, ${t0}, ${t0}
       FROM generate_series(1, $3::int) AS i`,
      now,
      o.passwordHash,
      o.users,
    );

  // Audit entries over `days` days, oldest first: mostly animal edits by the scale users, key changes, sign-ins,
  // and now and then the operator command.
  const audit = () =>
    prisma.$executeRawUnsafe(
      `WITH pets AS (SELECT min("id") AS first, count(*) AS n FROM "Pet"),
            keys AS (SELECT array_agg("id"::text ORDER BY "createdAt") AS ids FROM "ApiKey")
       INSERT INTO "AuditLog" ("at", "actor", "action", "entityType", "entityId", "before", "after")
       SELECT ${t0} - ($2::int - i) * ($3::int * interval '1 day' / $2::int),
              CASE WHEN i % 200 = 1 THEN 'cli:ops'
                   ELSE 'user:scale-user-' || (1 + i % $4::int) || '@petstore.example' END,
              e.action, e.type, e.id, e.before, e.after
       FROM generate_series(1, $2::int) AS i, pets, keys,
            LATERAL (
              SELECT
                CASE WHEN i % 10 IN (0, 1, 2, 3, 4) THEN 'pet.update'
                     WHEN i % 10 = 5 THEN 'pet.setStatus'
                     WHEN i % 10 = 6 THEN 'pet.create'
                     WHEN i % 10 = 7 THEN 'session.signIn'
                     WHEN i % 10 = 8 THEN 'apiKey.update'
                     ELSE 'apiKey.create' END AS action,
                (pets.first + (i * 7919) % pets.n)::text AS pet,
                keys.ids[1 + (i * 31) % cardinality(keys.ids)] AS key
            ) AS a,
            LATERAL (
              SELECT a.action,
                CASE WHEN a.action LIKE 'pet.%' THEN 'pet' WHEN a.action = 'session.signIn' THEN 'session'
                     ELSE 'apiKey' END AS type,
                CASE WHEN a.action LIKE 'pet.%' THEN a.pet
                     WHEN a.action = 'session.signIn' THEN 'scale-user-' || (1 + i % $4::int) || '@petstore.example'
                     ELSE a.key END AS id,
                CASE WHEN a.action = 'pet.update' THEN jsonb_build_object('name', ${names}[1 + i % 10], 'status', 'available')
                     WHEN a.action = 'pet.setStatus' THEN jsonb_build_object('status', 'available')
                     WHEN a.action = 'apiKey.update' THEN jsonb_build_object('plan', 'free') END AS before,
                CASE WHEN a.action IN ('pet.update', 'pet.create')
                       THEN jsonb_build_object('name', ${names}[1 + (i + 3) % 10] || ' ' || i, 'status', 'pending')
                     WHEN a.action = 'pet.setStatus' THEN jsonb_build_object('status', 'sold')
                     WHEN a.action = 'apiKey.update' THEN jsonb_build_object('plan', 'pro')
                     WHEN a.action = 'apiKey.create' THEN jsonb_build_object('name', 'Scale client', 'plan', 'pro')
                     WHEN a.action = 'session.signIn' THEN jsonb_build_object('ip', '203.0.113.' || (i % 250)) END AS after
            ) AS e`,
      now,
      o.auditEntries,
      o.days,
      o.users,
    );

  // A first-level ban (15 minutes, as bans.ts records one) per busy key and day with key_banned requests.
  const bans = () =>
    prisma.$executeRawUnsafe(
      `INSERT INTO "AuditLog" ("at", "actor", "action", "entityType", "entityId", "before", "after")
       SELECT b.at, 'system', 'apiKey.ban', 'apiKey', b."apiKeyId"::text,
              jsonb_build_object('prefix', k."prefix", 'bannedUntil', NULL),
              jsonb_build_object('prefix', k."prefix",
                                 'bannedUntil', to_char(b.at + interval '15 minutes', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                 'level', 1, 'durationSeconds', 900)
       FROM (SELECT "apiKeyId", min("hour") AS at FROM "UsageHour" WHERE "outcome" = 'key_banned'
             GROUP BY "apiKeyId", date_trunc('day', "hour")) AS b
       JOIN "ApiKey" AS k ON k."id" = b."apiKeyId"`,
    );

  // Two connections at a time (this machine class has two cores): the animals beside the keys and their usage;
  // the audit entries name both.
  const [animalRows, [keyRows, usageCount, userRows]] = await Promise.all([
    animals(),
    (async () => {
      const keys = await apiKeys();
      const usage = await usageRows();
      await usageTotals();
      await usageDays();
      return [keys, usage, await users()] as const;
    })(),
  ]);
  const auditRows = await audit();
  const banRows = await bans();
  for (const table of [
    "Pet",
    "ApiKey",
    "UsageHour",
    "UsageHourTotal",
    "UsageDay",
    "User",
    "AuditLog",
    "Category",
  ])
    await prisma.$executeRawUnsafe(`VACUUM ANALYZE "${table}"`);
  return {
    animals: animalRows,
    apiKeys: keyRows,
    usageRows: usageCount,
    users: userRows,
    auditEntries: auditRows,
    bans: banRows,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
