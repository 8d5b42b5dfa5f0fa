/**
 * Reading the append-only audit log (docs/contract.md section 4 "Audit log"): newest first, filterable by
 * actor, action, entity and a time range, each entry with the current name of its entity beside the id
 * (resolved here, in batches; a deleted entity keeps the name its last entry recorded). Read-only by design:
 * there is no update or delete here or anywhere else.
 *
 * At scale (section 4 "Counts at scale"): a page's total is counted up to COUNT_CAP, a page past the cap
 * counts exactly and reads from the nearer end; the "Who" list comes from the users table plus one index
 * probe per other actor; the export is read in batches by id, never whole.
 */
import { type AuditLogFilter, type AuditLogQuery, COUNT_CAP } from "@petstore/contracts";
import { Prisma, type PrismaClient } from "@petstore/db";
import type { CoreDeps } from "./deps.ts";

export interface AuditLogEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  /** The entity's name (animal, category, key `name (prefix…)`, plan, user `name <email>`), when known. */
  entityName: string | null;
  before: unknown;
  after: unknown;
}

/** One page of the log: `total` is exact when `totalExact`, else COUNT_CAP (there are more). */
export interface AuditLogPage {
  rows: AuditLogEntry[];
  total: number;
  totalExact: boolean;
}

/** Someone the "Who" filter offers: `actor` as the log records it, `label` as people read it. */
export interface AuditActor {
  actor: string;
  label: string;
}

/** Entries per batch of an export. */
export const AUDIT_EXPORT_BATCH = 2_000;

/** Other actors (system, cli:..., anonymous, ...) the "Who" list offers at most. */
const MAX_OTHER_ACTORS = 200;

interface RawEntry {
  id: bigint;
  at: Date;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
}

/** `WHERE` of the filters, plus `extra` conditions. */
function whereOf(filter: AuditLogFilter, extra: Prisma.Sql[] = []): Prisma.Sql {
  const parts = [
    ...(filter.actor ? [Prisma.sql`"actor" = ${filter.actor}`] : []),
    ...(filter.action ? [Prisma.sql`"action" = ${filter.action}`] : []),
    ...(filter.entityType ? [Prisma.sql`"entityType" = ${filter.entityType}`] : []),
    ...(filter.entityId ? [Prisma.sql`"entityId" = ${filter.entityId}`] : []),
    ...(filter.from ? [Prisma.sql`"at" >= (${filter.from}::timestamptz AT TIME ZONE 'UTC')`] : []),
    ...(filter.to ? [Prisma.sql`"at" < (${filter.to}::timestamptz AT TIME ZONE 'UTC')`] : []),
    ...extra,
  ];
  return parts.length ? Prisma.sql`WHERE ${Prisma.join(parts, " AND ")}` : Prisma.empty;
}

const COLUMNS = Prisma.sql`"id", "at", "actor", "action", "entityType", "entityId", "before", "after"`;

/** `name` (or a webhook endpoint's `url`) recorded in an entry's before/after JSON (for entities deleted since). */
function recordedName(value: unknown): string | undefined {
  if (value && typeof value === "object") {
    const name = "name" in value ? value.name : "url" in value ? value.url : undefined;
    if (typeof name === "string") return name;
  }
  return undefined;
}

const bigIds = (ids: string[]) =>
  ids.filter((id) => /^[0-9]{1,19}$/.test(id) && BigInt(id) < 2n ** 63n).map((id) => id);
const uuids = (ids: string[]) =>
  ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));

export function createAuditLogService({ prisma }: Pick<CoreDeps, "prisma">) {
  const db: Pick<PrismaClient, "$queryRaw"> = prisma;

  /** `take` entries from `skip` on, newest first (or oldest first when `oldestFirst`). */
  async function entries(
    tx: Pick<PrismaClient, "$queryRaw">,
    filter: AuditLogFilter,
    skip: number,
    take: number,
    oldestFirst = false,
  ): Promise<RawEntry[]> {
    const order = Prisma.raw(oldestFirst ? "ASC" : "DESC");
    const rows = await tx.$queryRaw<RawEntry[]>`
      SELECT ${COLUMNS} FROM "AuditLog" ${whereOf(filter)} ORDER BY "id" ${order} OFFSET ${skip} LIMIT ${take}`;
    return oldestFirst ? rows.reverse() : rows;
  }

  /** Entries matching `filter`, counted up to `cap + 1` (null: all of them). */
  async function countEntries(
    tx: Pick<PrismaClient, "$queryRaw">,
    filter: AuditLogFilter,
    cap: number | null,
  ): Promise<number> {
    const limit = cap === null ? Prisma.empty : Prisma.sql`LIMIT ${cap + 1}`;
    const [row] = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(*)::float8 AS n FROM (SELECT 1 FROM "AuditLog" ${whereOf(filter)} ${limit}) AS m`;
    return row?.n ?? 0;
  }

  /**
   * Current names of the entities of `rows`, keyed `type:id`; one query per entity type, each with its ids as
   * one array parameter (Prisma's cost grows with the length of an IN list, one parameter per id).
   */
  async function namesOf(rows: { entityType: string; entityId: string }[]): Promise<Map<string, string>> {
    const idsOf = (type: string) => [
      ...new Set(rows.filter((r) => r.entityType === type).map((r) => r.entityId)),
    ];
    const none = Promise.resolve([]);
    const petIds = bigIds(idsOf("pet"));
    const categoryIds = bigIds(idsOf("category"));
    const keyIds = uuids(idsOf("apiKey"));
    const userIds = uuids(idsOf("user"));
    const endpointIds = uuids(idsOf("webhookEndpoint"));
    const accountIds = uuids(idsOf("account"));
    const [pets, categories, keys, users, endpoints, accounts] = await Promise.all([
      petIds.length
        ? db.$queryRaw<{ id: bigint; name: string }[]>`
            SELECT "id", "name" FROM "Pet" WHERE "id" = ANY(${petIds}::bigint[])`
        : none,
      categoryIds.length
        ? db.$queryRaw<{ id: bigint; name: string }[]>`
            SELECT "id", "name" FROM "Category" WHERE "id" = ANY(${categoryIds}::bigint[])`
        : none,
      keyIds.length
        ? db.$queryRaw<{ id: string; name: string; prefix: string }[]>`
            SELECT "id"::text, "name", "prefix" FROM "ApiKey" WHERE "id" = ANY(${keyIds}::uuid[])`
        : none,
      userIds.length
        ? db.$queryRaw<{ id: string; name: string; email: string }[]>`
            SELECT "id"::text, "name", "email" FROM "User" WHERE "id" = ANY(${userIds}::uuid[])`
        : none,
      endpointIds.length
        ? db.$queryRaw<{ id: string; url: string }[]>`
            SELECT "id"::text, "url" FROM "WebhookEndpoint" WHERE "id" = ANY(${endpointIds}::uuid[])`
        : none,
      accountIds.length
        ? db.$queryRaw<{ id: string; name: string }[]>`
            SELECT "id"::text, "name" FROM "Account" WHERE "id" = ANY(${accountIds}::uuid[])`
        : none,
    ]);
    const names = new Map<string, string>();
    for (const p of pets) names.set(`pet:${p.id}`, p.name);
    for (const c of categories) names.set(`category:${c.id}`, c.name);
    for (const k of keys) names.set(`apiKey:${k.id}`, `${k.name} (${k.prefix}…)`);
    for (const u of users) names.set(`user:${u.id}`, `${u.name} <${u.email}>`);
    for (const e of endpoints) names.set(`webhookEndpoint:${e.id}`, e.url);
    for (const a of accounts) names.set(`account:${a.id}`, a.name);
    for (const plan of idsOf("plan"))
      names.set(`plan:${plan}`, `${plan.charAt(0).toUpperCase()}${plan.slice(1)} plan`);
    return names;
  }

  async function withNames(rows: RawEntry[]): Promise<AuditLogEntry[]> {
    const names = await namesOf(rows);
    return rows.map((r) => ({
      id: Number(r.id),
      at: r.at.toISOString(),
      actor: r.actor,
      action: r.action,
      entityType: r.entityType,
      entityId: r.entityId,
      entityName:
        names.get(`${r.entityType}:${r.entityId}`) ?? recordedName(r.after) ?? recordedName(r.before) ?? null,
      before: r.before ?? null,
      after: r.after ?? null,
    }));
  }

  return {
    /**
     * One page of entries matching the filters, newest first, with their count (exact up to COUNT_CAP; a
     * page past the cap counts exactly and is read from the nearer end of the log).
     */
    async list(query: AuditLogQuery): Promise<AuditLogPage> {
      const skip = (query.page - 1) * query.pageSize;
      if (skip + query.pageSize <= COUNT_CAP) {
        const [counted, rows] = await Promise.all([
          countEntries(db, query, COUNT_CAP),
          entries(db, query, skip, query.pageSize),
        ]);
        return {
          rows: await withNames(rows),
          total: Math.min(counted, COUNT_CAP),
          totalExact: counted <= COUNT_CAP,
        };
      }
      const { rows, total } = await prisma.$transaction(
        async (tx) => {
          const total = await countEntries(tx, query, null);
          const left = total - skip;
          if (left <= 0) return { rows: [], total };
          const take = Math.min(query.pageSize, left);
          const rows =
            left - take < skip
              ? await entries(tx, query, left - take, take, true)
              : await entries(tx, query, skip, take);
          return { rows, total };
        },
        { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 60_000 },
      );
      return { rows: await withNames(rows), total, totalExact: true };
    },

    /**
     * Every entry matching the filters, newest first, in batches of `batchSize` (keyset by id; the entries
     * written after the first batch was read are not included), each entry named as in `list`. Holds one
     * batch at a time.
     */
    async *exportBatches(
      filter: AuditLogFilter,
      batchSize = AUDIT_EXPORT_BATCH,
    ): AsyncGenerator<AuditLogEntry[], void, undefined> {
      let below: bigint | undefined;
      for (;;) {
        const rows = await db.$queryRaw<RawEntry[]>`
          SELECT ${COLUMNS} FROM "AuditLog"
          ${whereOf(filter, below === undefined ? [] : [Prisma.sql`"id" < ${below}`])}
          ORDER BY "id" DESC LIMIT ${batchSize}`;
        if (rows.length === 0) return;
        below = rows[rows.length - 1]?.id;
        yield await withNames(rows);
        if (rows.length < batchSize) return;
      }
    },

    /**
     * Whom the "Who" filter offers: every user (`user:<email>`, labelled `name <email>`, by email), then the
     * other actors the log holds (`system`, `cli:<os user>`, `anonymous`, ...; at most 200, alphabetical),
     * found with one probe of a partial index per actor, not by reading the log.
     */
    async actors(): Promise<AuditActor[]> {
      const [users, others] = await Promise.all([
        prisma.user.findMany({ select: { email: true, name: true }, orderBy: { email: "asc" } }),
        db.$queryRaw<{ actor: string }[]>`
          WITH RECURSIVE others("actor") AS (
            (SELECT "actor" FROM "AuditLog" WHERE "actor" NOT LIKE 'user:%' ORDER BY "actor" LIMIT 1)
            UNION ALL
            SELECT (SELECT a."actor" FROM "AuditLog" AS a
                    WHERE a."actor" NOT LIKE 'user:%' AND a."actor" > o."actor"
                    ORDER BY a."actor" LIMIT 1)
            FROM others AS o WHERE o."actor" IS NOT NULL
          )
          SELECT "actor" FROM others WHERE "actor" IS NOT NULL LIMIT ${MAX_OTHER_ACTORS}`,
      ]);
      return [
        ...users.map((u) => ({ actor: `user:${u.email}`, label: `${u.name} <${u.email}>` })),
        ...others.map((o) => ({ actor: o.actor, label: o.actor })),
      ];
    },
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
