import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { UsersPage } from "@/admin/users/users-page";

export const metadata: Metadata = { title: "Users" };

export default function Page() {
  return adminsOnly(<UsersPage />);
}
