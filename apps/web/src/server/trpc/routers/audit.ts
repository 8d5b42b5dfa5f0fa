/** Audit log (admins): read-only, newest first, filterable by actor and entity. */
import { AuditLogQuery } from "@petstore/contracts";
import { adminProcedure, router } from "../init";

export const auditRouter = router({
  list: adminProcedure.input(AuditLogQuery).query(({ ctx, input }) => ctx.rt.auditLog.list(input)),
  actors: adminProcedure.query(({ ctx }) => ctx.rt.auditLog.actors()),
});
