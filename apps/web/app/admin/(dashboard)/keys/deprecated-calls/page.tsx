import type { Metadata } from "next";
import { adminsOnly } from "@/admin/admins-only";
import { DeprecatedCallsPage } from "@/admin/keys/deprecated-calls-page";

export const metadata: Metadata = { title: "Keys calling the deprecated getPet" };

export default function Page() {
  return adminsOnly(<DeprecatedCallsPage />);
}
