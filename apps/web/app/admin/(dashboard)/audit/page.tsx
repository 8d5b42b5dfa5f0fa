import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { AuditPage } from "@/admin/audit/audit-page";

export const metadata: Metadata = { title: "Audit log" };

export default function Page() {
  return adminsOnly(<AuditPage />);
}
