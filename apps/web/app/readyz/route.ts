/**
 * GET /readyz: 200 when the database and the rate-limit store answer, else 503 with which one failed
 * (docs/contract.md section 5).
 */
import { checkReadiness } from "@/server/readiness";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const report = await checkReadiness();
  return Response.json(report, {
    status: report.status === "ok" ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}
