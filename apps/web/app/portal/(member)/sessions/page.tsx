import type { Metadata } from "next";
import { SessionsPage } from "@/admin/sessions/sessions-page";

export const metadata: Metadata = { title: "Your sessions" };

export default function Page() {
  return <SessionsPage signInPath="/portal/sign-in" />;
}
