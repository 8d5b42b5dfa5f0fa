/** Dashboard root: Mantine styles and the client providers (theme, toasts, tRPC). */
import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "@mantine/charts/styles.css";
import "@mantine/dates/styles.css";
import "./admin.css";
import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { AdminProviders } from "@/admin/providers";
import { NONCE_HEADER } from "@/server/security-headers";

export const metadata: Metadata = {
  title: { template: "%s · Pet Store admin", default: "Pet Store admin" },
  robots: { index: false, follow: false },
};

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return <AdminProviders nonce={nonce}>{children}</AdminProviders>;
}
