/** The sign-in page of the dashboard or the portal; a visitor signed in already goes on at once. */
import { redirect } from "next/navigation";
import { currentUser } from "@/server/next-child/page-auth";
import { SignInForm } from "./sign-in-form";

const SIDES = {
  admin: { title: "Pet Store admin", intro: "Sign in with your staff account." },
  portal: { title: "Pet Store developer portal", intro: "Sign in to manage your account's API keys." },
};

/**
 * Staff go to the dashboard and members to the portal, whichever page they sign in on; `next` (a path of this
 * side, never another site's: no open redirect) is where this side's user goes; `reason` says why they are here.
 */
/** Why the visitor is on the sign-in page, from `?reason=`: a tab whose session ended (trpc.tsx, page-auth.ts). */
const REASONS: Record<string, { title: string; text: string }> = {
  ended: {
    title: "You were signed out",
    text: "Your session ended: it expired, you signed out elsewhere, or your sign-in was removed (an owner removed you from the account, or an admin from the staff). Sign in again; if you cannot, ask an owner for a new invitation.",
  },
};

export async function signInPage(side: keyof typeof SIDES, next: string | undefined, reason?: string) {
  const home = `/${side}`;
  const back = next && new RegExp(`^/${side}(/[A-Za-z0-9/_-]*)?(\\?[^\\s]*)?$`).test(next) ? next : home;
  const to = side === "admin" ? { staff: back, member: "/portal" } : { staff: "/admin", member: back };
  const user = await currentUser();
  if (user) redirect(user.accountId ? to.member : to.staff);
  return <SignInForm {...SIDES[side]} to={to} notice={reason ? REASONS[reason] : undefined} />;
}
