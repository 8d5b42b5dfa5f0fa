/** GET /healthz: the process is up (no dependencies checked). Also served by server.ts directly (src/server/ops). */
import { healthResponse } from "@/server/ops/probes";

export const dynamic = "force-dynamic";

export const GET = healthResponse;
