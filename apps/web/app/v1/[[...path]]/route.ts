/** Mounts the REST API v1 (src/server/rest) on every method under /v1, for hosts without server.ts. */
import { nextRestFetch as restFetch } from "@/server/rest/handler";

export const dynamic = "force-dynamic";

export const GET = restFetch;
export const HEAD = restFetch;
export const POST = restFetch;
export const PUT = restFetch;
export const PATCH = restFetch;
export const DELETE = restFetch;
export const OPTIONS = restFetch;
