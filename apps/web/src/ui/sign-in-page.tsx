/** The sign-in page of the dashboard or the portal; a visitor signed in already goes on at once. */
import { redirect } from "next/navigation";
import { currentUser } from "@/server/trpc/page-auth";
import { SignInForm } from "./sign-in-form";

const SIDES = {
  admin: { title: "Pet Store admin", intro: "Sign in with your staff account." },
  portal: { title: "Pet Store developer portal", intro: "Sign in to manage your account's API keys." },
};

/**
 * Staff go to the dashboard and members to the portal, whichever page they sign in on; `next` (a path of this
 * side, never another site's: no open redirect) is where this side's user goes.
 */
export async function signInPage(side: keyof typeof SIDES, next: string | undefined) {
  const home = `/${side}`;
  const back = next && new RegExp(`^/${side}(/[A-Za-z0-9/_-]*)?(\\?[^\\s]*)?$`).test(next) ? next : home;
  const to = side === "admin" ? { staff: back, member: "/portal" } : { staff: "/admin", member: back };
  const user = await currentUser();
  if (user) redirect(user.accountId ? to.member : to.staff);
  return <SignInForm {...SIDES[side]} to={to} />;
}
