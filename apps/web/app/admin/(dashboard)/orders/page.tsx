import type { Metadata } from "next";
import { OrdersPage } from "@/admin/orders/orders-page";

export const metadata: Metadata = { title: "Orders" };

export default function Page() {
  return <OrdersPage />;
}
