/**
 * Session checks for the dashboard's server-rendered pages (the same session the tRPC context resolves):
 * `currentUser()` reads the session cookie once per request and asks server.ts, which holds the runtime, whose
 * session it is (dashboard-link.ts). When the database does not answer, the browser is sent to the unavailable
 * page (server.ts answers it with a styled 503), never to an HTML 500.
 */
import type { SessionUser } from "@petstore/core";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { userOfSession } from "../dashboard-link";
import { UNAVAILABLE_PATH } from "../http/unavailable-page";
import { SESSION_COOKIE } from "./cookies";

/** The signed-in user for this request, or null. */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  const lookup = await userOfSession(token);
  if ("unavailable" in lookup) redirect(UNAVAILABLE_PATH);
  return lookup.user;
});
