/**
 * GET /readyz: 200 when the database and the rate-limit store answer, else 503 with which one failed
 * (docs/contract.md section 5). Also served by server.ts directly (src/server/ops).
 */
import { readinessResponse } from "@/server/ops/probes";

export const dynamic = "force-dynamic";

export const GET = readinessResponse;
