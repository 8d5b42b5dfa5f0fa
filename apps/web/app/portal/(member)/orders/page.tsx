import type { Metadata } from "next";
import { OrdersPage } from "@/portal/orders-page";

export const metadata: Metadata = { title: "Orders" };

export default function Page() {
  return <OrdersPage />;
}
