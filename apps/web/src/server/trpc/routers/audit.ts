/**
 * Audit log (admins): read-only, newest first, filterable by actor, action, entity and time range, with
 * entity names beside ids and a count capped at COUNT_CAP (docs/contract.md section 4). The CSV export is a
 * streamed download outside tRPC: GET /api/audit/export (src/server/audit-export.ts).
 */
import { AuditLogQuery } from "@petstore/contracts";
import { adminProcedure, router } from "../init";

export const auditRouter = router({
  list: adminProcedure.input(AuditLogQuery).query(({ ctx, input }) => ctx.rt.auditLog.list(input)),
  /** Whom the "Who" filter offers: every user, then the other actors in the log (system, cli:..., ...). */
  actors: adminProcedure.query(({ ctx }) => ctx.rt.auditLog.actors()),
});
