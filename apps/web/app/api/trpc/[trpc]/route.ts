/** Mounts the dashboard's tRPC API (src/server/trpc) at /api/trpc. */
import { handleTrpcRequest } from "@/server/trpc/handler";

export const dynamic = "force-dynamic";

export const GET = handleTrpcRequest;
export const POST = handleTrpcRequest;
