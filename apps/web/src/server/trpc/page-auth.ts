/**
 * Session checks for the dashboard's server-rendered pages (the same session the tRPC context resolves):
 * `currentUser()` reads the session cookie once per request.
 */
import type { SessionUser } from "@petstore/core";
import { cookies } from "next/headers";
import { cache } from "react";
import { getRuntime } from "../runtime";
import { SESSION_COOKIE } from "./cookies";

/** The signed-in user for this request, or null. */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  const rt = await getRuntime();
  return (await rt.sessions.resolve(token))?.user ?? null;
});
