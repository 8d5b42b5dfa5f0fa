import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { KeysPage } from "@/admin/keys/keys-page";

export const metadata: Metadata = { title: "API keys" };

export default function Page() {
  return adminsOnly(<KeysPage />);
}
