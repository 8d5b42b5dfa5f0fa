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

/** The session cookie's lookup for this request (once), or null without a cookie. */
const sessionLookup = cache(async (): Promise<{ user: SessionUser | null; ended?: "removed" } | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  const lookup = await userOfSession(token);
  if ("unavailable" in lookup) redirect(unavailableAddress((await headers()).get(ADDRESS_HEADER)));
  return lookup;
});

/** The signed-in user for this request, or null. */
export const currentUser = cache(
  async (): Promise<SessionUser | null> => (await sessionLookup())?.user ?? null,
);

/**
 * Why the browser's session cookie names no session any more, when it was ended on its person's behalf:
 * `removed` (a member removed from their account); undefined otherwise.
 */
export const endedReason = async (): Promise<"removed" | undefined> => (await sessionLookup())?.ended;

/**
 * The sign-in page `path` for a visitor without a user: with `?reason=removed` when their session ended because
 * they were removed from their account, `?reason=ended` when the browser still holds a session cookie that names no
 * session any more for another reason (it expired, was signed out elsewhere), so the page says why; the bare path
 * for a visitor who never signed in.
 */
export async function signInAddress(path: string): Promise<string> {
  if (!(await cookies()).get(SESSION_COOKIE)?.value) return path;
  return `${path}?reason=${(await endedReason()) ?? "ended"}`;
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
