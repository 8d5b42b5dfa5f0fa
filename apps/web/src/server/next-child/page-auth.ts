/**
 * Session checks for the dashboard's server-rendered pages (the same session the tRPC context resolves):
 * `currentUser()` reads the session cookie once per request and asks server.ts, which holds the runtime, whose
 * session it is (parent-link.ts). When the database does not answer, the browser is sent to the unavailable
 * page (server.ts answers it with a styled 503), never to an HTML 500, with the page's address (path and query,
 * as proxy.ts records it), which that page reloads.
 */
import type { SessionUser } from "@petstore/core";
import { cookies, headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { unavailableAddress } from "../http/unavailable-page";
import type { RecordKind } from "../next-child-protocol";
import { ADDRESS_HEADER } from "../security-headers";
import { SESSION_COOKIE } from "../trpc/cookies";
import { recordExists, userOfSession } from "./parent-link";

/** The signed-in user for this request, or null. */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  const lookup = await userOfSession(token);
  if ("unavailable" in lookup) redirect(unavailableAddress((await headers()).get(ADDRESS_HEADER)));
  return lookup.user;
});

/**
 * The sign-in page `path` for a visitor without a user: with `?reason=ended` when the browser still holds a session
 * cookie that names no session any more (it expired, was signed out elsewhere, or its member was removed), so the
 * page says why; the bare path for a visitor who never signed in.
 */
export async function signInAddress(path: string): Promise<string> {
  return (await cookies()).get(SESSION_COOKIE)?.value ? `${path}?reason=ended` : path;
}

/**
 * Renders the dashboard's 404 (not-found.tsx) unless record `id` of `kind` exists: for a detail page whose address
 * names an API key, a webhook endpoint or an account (docs/contract.md section 4). An outage sends the browser to the
 * unavailable page, as `currentUser` does. @throws Next's not-found or redirect signal.
 */
export async function requireRecord(kind: RecordKind, id: string): Promise<void> {
  const found = await recordExists(kind, id);
  if (found === "unavailable") redirect(unavailableAddress((await headers()).get(ADDRESS_HEADER)));
  if (!found) notFound();
}
