/** Sign-in; a visitor already signed in goes on at once: staff to the dashboard, members to the portal. */
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUser } from "@/server/trpc/page-auth";
import { SignInForm } from "@/ui/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // Only same-site dashboard paths: never an open redirect.
  const target =
    next && /^\/admin(\/[A-Za-z0-9/_-]*)?(\?[^\s]*)?$/.test(next) && !next.startsWith("//") ? next : "/admin";
  const user = await currentUser();
  if (user) redirect(user.accountId ? "/portal" : target);
  return (
    <SignInForm
      title="Pet Store admin"
      intro="Sign in with your staff account."
      to={{ staff: target, member: "/portal" }}
    />
  );
}
