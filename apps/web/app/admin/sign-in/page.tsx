import type { Metadata } from "next";
import { signInPage } from "@/ui/sign-in-page";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; reason?: string }>;
}) {
  const { next, reason } = await searchParams;
  return signInPage("admin", next, reason);
}
