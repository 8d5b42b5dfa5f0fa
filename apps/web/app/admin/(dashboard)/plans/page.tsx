import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { PlansPage } from "@/admin/plans/plans-page";

export const metadata: Metadata = { title: "Plans" };

export default function Page() {
  return adminsOnly(<PlansPage />);
}
