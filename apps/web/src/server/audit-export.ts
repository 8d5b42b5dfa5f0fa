/**
 * `GET /api/audit/export` (docs/contract.md section 4 "Audit log"): every audit entry matching the audit filters
 * (`actor`, `action`, `entityType`, `entityId`, `from`, `to`: AuditLogFilter), newest first, as a CSV download
 * (csv-download.ts), read in batches of AUDIT_EXPORT_BATCH.
 */
import { AuditLogFilter } from "@petstore/contracts";
import { AUDIT_CSV } from "./audit-csv";
import { csvDownload } from "./csv-download";

export const AUDIT_EXPORT = "/api/audit/export";

/** The answer to export request `req` on `rt`. */
export const auditExportResponse = csvDownload({
  filter: AuditLogFilter,
  table: AUDIT_CSV,
  batches: (rt, filter) => rt.auditLog.exportBatches(filter),
  filename: (_filter, stamp) => `audit-log-${stamp}.csv`,
});
