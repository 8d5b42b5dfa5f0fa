import type { Metadata } from "next";
import { RequestsPage } from "@/portal/requests-page";

export const metadata: Metadata = { title: "Request log" };

export default function Page() {
  return <RequestsPage />;
}
