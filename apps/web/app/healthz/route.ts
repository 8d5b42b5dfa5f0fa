/** GET /healthz on hosts without server.ts (which answers it itself: src/server/ops/handler.ts). */
import { opsRoute } from "@/server/ops/next-routes";

export const dynamic = "force-dynamic";

export const GET = opsRoute;
