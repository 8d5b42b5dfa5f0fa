import type { Metadata } from "next";
import { SecurityPage } from "@/ui/people/security-page";

export const metadata: Metadata = { title: "Password and two-factor sign-in" };

export default function Page() {
  return <SecurityPage />;
}
