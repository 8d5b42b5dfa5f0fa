/** Dashboard root: Mantine styles and the client providers (theme, toasts, tRPC). */
import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "@mantine/charts/styles.css";
import "./admin.css";
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AdminProviders } from "@/admin/providers";

export const metadata: Metadata = {
  title: { template: "%s · Pet Store admin", default: "Pet Store admin" },
  robots: { index: false, follow: false },
};

export default function AdminLayout({ children }: { children: ReactNode }) {
  return <AdminProviders>{children}</AdminProviders>;
}
