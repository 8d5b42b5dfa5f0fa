/**
 * Reading the append-only audit log (PRODUCT.md section 4): newest first, filterable by actor and entity.
 * Read-only by design: there is no update or delete here or anywhere else.
 */
import type { AuditLogQuery } from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import type { CoreDeps } from "./deps.ts";

export interface AuditLogEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
}

export function createAuditLogService({ prisma }: Pick<CoreDeps, "prisma">) {
  return {
    /** One page of entries matching the filters, newest first, with the total count. */
    async list(query: AuditLogQuery): Promise<{ rows: AuditLogEntry[]; total: number }> {
      const where: Prisma.AuditLogWhereInput = {
        ...(query.actor ? { actor: query.actor } : {}),
        ...(query.entityType ? { entityType: query.entityType } : {}),
        ...(query.entityId ? { entityId: query.entityId } : {}),
      };
      const [total, rows] = await prisma.$transaction([
        prisma.auditLog.count({ where }),
        prisma.auditLog.findMany({
          where,
          orderBy: { id: "desc" },
          skip: (query.page - 1) * query.pageSize,
          take: query.pageSize,
        }),
      ]);
      return {
        total,
        rows: rows.map((r) => ({
          id: Number(r.id),
          at: r.at.toISOString(),
          actor: r.actor,
          action: r.action,
          entityType: r.entityType,
          entityId: r.entityId,
          before: r.before ?? null,
          after: r.after ?? null,
        })),
      };
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
