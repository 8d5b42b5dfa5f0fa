/** The portal's sign-in; a visitor already signed in goes on at once: members to the portal, staff to the dashboard. */
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUser } from "@/server/trpc/page-auth";
import { SignInForm } from "@/ui/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // Only same-site portal paths: never an open redirect.
  const target =
    next && /^\/portal(\/[A-Za-z0-9/_-]*)?(\?[^\s]*)?$/.test(next) && !next.startsWith("//")
      ? next
      : "/portal";
  const user = await currentUser();
  if (user) redirect(user.accountId ? target : "/admin");
  return (
    <SignInForm
      title="Pet Store developer portal"
      intro="Sign in to manage your account's API keys."
      to={{ staff: "/admin", member: target }}
    />
  );
}
