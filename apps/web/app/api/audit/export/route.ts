/** The audit log as a streamed CSV download (src/server/audit-export.ts). */
import { handleAuditExport } from "@/server/audit-export";

export const dynamic = "force-dynamic";

export const GET = handleAuditExport;
