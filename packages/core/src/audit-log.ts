/**
 * Reading the append-only audit log (docs/contract.md section 4): newest first, filterable by actor,
 * entity and a time range, each entry with the current name of its entity beside the id (resolved here,
 * in batches; a deleted entity keeps the name its last entry recorded). Read-only by design: there is no
 * update or delete here or anywhere else.
 */
import type { AuditLogFilter, AuditLogQuery } from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
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

/** At most this many entries are exported at once. */
export const AUDIT_EXPORT_LIMIT = 10_000;

function whereOf(filter: AuditLogFilter): Prisma.AuditLogWhereInput {
  return {
    ...(filter.actor ? { actor: filter.actor } : {}),
    ...(filter.entityType ? { entityType: filter.entityType } : {}),
    ...(filter.entityId ? { entityId: filter.entityId } : {}),
    ...(filter.from || filter.to
      ? {
          at: {
            ...(filter.from ? { gte: new Date(filter.from) } : {}),
            ...(filter.to ? { lt: new Date(filter.to) } : {}),
          },
        }
      : {}),
  };
}

/** `name` recorded in an entry's before/after JSON (for entities deleted since). */
function recordedName(value: unknown): string | undefined {
  if (value && typeof value === "object" && "name" in value) {
    const name = (value as { name: unknown }).name;
    if (typeof name === "string") return name;
  }
  return undefined;
}

const bigIds = (ids: string[]) => ids.filter((id) => /^[0-9]{1,19}$/.test(id)).map((id) => BigInt(id));
const uuids = (ids: string[]) => ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id));

export function createAuditLogService({ prisma }: Pick<CoreDeps, "prisma">) {
  /** Current names of the entities of `rows`, keyed `type:id`; one query per entity type. */
  async function namesOf(rows: { entityType: string; entityId: string }[]): Promise<Map<string, string>> {
    const idsOf = (type: string) => [
      ...new Set(rows.filter((r) => r.entityType === type).map((r) => r.entityId)),
    ];
    const [pets, categories, keys, users] = await Promise.all([
      prisma.pet.findMany({ where: { id: { in: bigIds(idsOf("pet")) } }, select: { id: true, name: true } }),
      prisma.category.findMany({
        where: { id: { in: bigIds(idsOf("category")) } },
        select: { id: true, name: true },
      }),
      prisma.apiKey.findMany({
        where: { id: { in: uuids(idsOf("apiKey")) } },
        select: { id: true, name: true, prefix: true },
      }),
      prisma.user.findMany({
        where: { id: { in: uuids(idsOf("user")) } },
        select: { id: true, name: true, email: true },
      }),
    ]);
    const names = new Map<string, string>();
    for (const p of pets) names.set(`pet:${p.id}`, p.name);
    for (const c of categories) names.set(`category:${c.id}`, c.name);
    for (const k of keys) names.set(`apiKey:${k.id}`, `${k.name} (${k.prefix}…)`);
    for (const u of users) names.set(`user:${u.id}`, `${u.name} <${u.email}>`);
    for (const plan of idsOf("plan"))
      names.set(`plan:${plan}`, `${plan.charAt(0).toUpperCase()}${plan.slice(1)} plan`);
    return names;
  }

  async function withNames(
    rows: Prisma.AuditLogGetPayload<Record<string, never>>[],
  ): Promise<AuditLogEntry[]> {
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
    /** One page of entries matching the filters, newest first, with the total count. */
    async list(query: AuditLogQuery): Promise<{ rows: AuditLogEntry[]; total: number }> {
      const where = whereOf(query);
      const [total, rows] = await prisma.$transaction([
        prisma.auditLog.count({ where }),
        prisma.auditLog.findMany({
          where,
          orderBy: { id: "desc" },
          skip: (query.page - 1) * query.pageSize,
          take: query.pageSize,
        }),
      ]);
      return { total, rows: await withNames(rows) };
    },

    /**
     * Every entry matching the filters, newest first, at most `AUDIT_EXPORT_LIMIT`.
     * @returns the entries and `total` (all matches; more than the rows when cut off).
     */
    async exportRows(filter: AuditLogFilter): Promise<{ rows: AuditLogEntry[]; total: number }> {
      const where = whereOf(filter);
      const [total, rows] = await prisma.$transaction([
        prisma.auditLog.count({ where }),
        prisma.auditLog.findMany({ where, orderBy: { id: "desc" }, take: AUDIT_EXPORT_LIMIT }),
      ]);
      return { total, rows: await withNames(rows) };
    },

    /** Distinct actors (for the filter), alphabetical, at most 500. */
    async actors(): Promise<string[]> {
      const rows = await prisma.auditLog.findMany({
        distinct: ["actor"],
        select: { actor: true },
        orderBy: { actor: "asc" },
        take: 500,
      });
      return rows.map((r) => r.actor);
    },
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
