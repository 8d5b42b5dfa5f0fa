import type { Metadata } from "next";
import { AccountPage } from "@/portal/account-page";

export const metadata: Metadata = { title: "Your account" };

export default function Page() {
  return <AccountPage />;
}
