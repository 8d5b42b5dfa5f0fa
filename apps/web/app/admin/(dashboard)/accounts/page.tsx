import type { Metadata } from "next";
import { AccountsPage } from "@/admin/accounts/accounts-page";
import { adminsOnly } from "@/admin/admins-only";

export const metadata: Metadata = { title: "Accounts" };

export default function Page() {
  return adminsOnly(<AccountsPage />);
}
