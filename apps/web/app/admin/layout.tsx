/**
 * The dashboard's root: Mantine's styles and the client providers. The charts' and date pickers' styles come with
 * the components that use them, so that pages without either do not wait for them.
 */
import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "./admin.css";
import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { NONCE_HEADER } from "@/server/security-headers";
import { Providers } from "@/ui/providers";

export const metadata: Metadata = {
  title: { template: "%s · Pet Store admin", default: "Pet Store admin" },
  robots: { index: false, follow: false },
};

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return (
    <Providers nonce={nonce} signInPath="/admin/sign-in">
      {children}
    </Providers>
  );
}
