/** A password reset link's page: open to anyone holding the link. */
import type { Metadata } from "next";
import { ResetPasswordPage } from "@/ui/people/password-pages";

export const metadata: Metadata = { title: "Choose a new password" };
export const dynamic = "force-dynamic";

export default async function Page({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <ResetPasswordPage token={token} signIn="/portal/sign-in" />;
}
