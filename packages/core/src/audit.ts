/**
 * Append-only audit log of changes made through the dashboard or the CLI (docs/contract.md section 4).
 * Entries are only ever inserted; nothing in the codebase updates or deletes them.
 */
import type { AuditAction, AuditEntityType } from "@petstore/contracts";
import type { Prisma } from "@petstore/db";
import type { Actor } from "./deps.ts";

type Tx = Pick<Prisma.TransactionClient, "auditLog">;

export interface AuditEntry {
  actor: Actor;
  /** One of the closed set the audit log's filter offers (contracts `AUDIT_ACTIONS`). */
  action: AuditAction;
  /** `session`: sign-in events, identified by the account's email (or the client IP for per-client throttling). */
  entityType: AuditEntityType;
  entityId: string;
  before?: unknown;
  after?: unknown;
}

/** Converts BigInt and Date values so `value` can be stored as JSON. */
export function toAuditJson(value: unknown): Prisma.InputJsonValue | undefined {
  if (value === undefined || value === null) return undefined;
  return JSON.parse(
    JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
  ) as Prisma.InputJsonValue;
}

const auditRow = (entry: AuditEntry) => ({
  actor: entry.actor,
  action: entry.action,
  entityType: entry.entityType,
  entityId: entry.entityId,
  before: toAuditJson(entry.before),
  after: toAuditJson(entry.after),
});

/** Inserts one audit entry inside the caller's transaction `tx`. */
export async function writeAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  await tx.auditLog.create({ data: auditRow(entry) });
}

/** Inserts `entries` (in their order) inside the caller's transaction `tx`, in one statement. */
export async function writeAudits(tx: Tx, entries: AuditEntry[]): Promise<void> {
  if (entries.length) await tx.auditLog.createMany({ data: entries.map(auditRow) });
}
