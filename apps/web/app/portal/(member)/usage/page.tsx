import type { Metadata } from "next";
import { UsagePage } from "@/portal/usage-page";

export const metadata: Metadata = { title: "Usage" };

export default function Page() {
  return <UsagePage />;
}
