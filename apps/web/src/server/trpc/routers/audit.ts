/**
 * Audit log (admins): read-only, newest first, filterable by actor, entity and time range, with entity
 * names beside ids; `export` gives the filtered log as CSV.
 */
import { AuditLogFilter, AuditLogQuery } from "@petstore/contracts";
import { auditCsv } from "../../audit-csv";
import { adminProcedure, router } from "../init";

export const auditRouter = router({
  list: adminProcedure.input(AuditLogQuery).query(({ ctx, input }) => ctx.rt.auditLog.list(input)),
  actors: adminProcedure.query(({ ctx }) => ctx.rt.auditLog.actors()),

  /**
   * Every entry matching the filters (at most AUDIT_EXPORT_LIMIT, newest first) as CSV.
   * @returns `{filename, csv, rows, total}`; `rows < total` when the export was cut off.
   */
  export: adminProcedure.input(AuditLogFilter.prefault({})).query(async ({ ctx, input }) => {
    const { rows, total } = await ctx.rt.auditLog.exportRows(input);
    const stamp = ctx.rt.clock().toISOString().slice(0, 19).replace(/[:T]/g, "-");
    return { filename: `audit-log-${stamp}.csv`, csv: auditCsv(rows), rows: rows.length, total };
  }),
});
