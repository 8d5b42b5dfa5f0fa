/** The portal's webhook pages are the dashboard's, on the member's account (docs/contract.md section 7). */
import type { ReactNode } from "react";
import { WebhookScope } from "@/ui/webhooks/scope";

export default function WebhooksLayout({ children }: { children: ReactNode }) {
  return <WebhookScope scope="portal">{children}</WebhookScope>;
}
