/** "Forgot password": open to anyone; the answer never says whether the email has a sign-in. */
import type { Metadata } from "next";
import { ForgotPasswordPage } from "@/ui/people/password-pages";

export const metadata: Metadata = { title: "Forgot your password?" };

export default function Page() {
  return <ForgotPasswordPage signIn="/portal/sign-in" />;
}
