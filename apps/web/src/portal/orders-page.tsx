"use client";
/**
 * The account's orders (docs/contract.md section 7, "Orders in the portal"): newest first, filtered in the URL by
 * status and animal, found by id; a placed one cancelled after confirming. Completing is the API client's step.
 */
import { PageHeader } from "@/ui/components/page";
import { OrderKey, OrdersView } from "@/ui/orders/orders-view";

export function OrdersPage() {
  return (
    <>
      <PageHeader
        title="Orders"
        description="Orders your keys placed. A placed order holds its animal until your client completes it, you cancel it, or the hold lapses."
      />
      <OrdersView scope="portal" who={{ header: "Key", cell: (o) => <OrderKey order={o} /> }} />
    </>
  );
}
