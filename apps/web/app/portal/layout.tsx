/** The developer portal's root: the dashboard's styles and client providers, with the portal's own sign-in page. */
import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "@mantine/charts/styles.css";
import "../admin/admin.css";
import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { NONCE_HEADER } from "@/server/security-headers";
import { Providers } from "@/ui/providers";

export const metadata: Metadata = {
  title: { template: "%s · Pet Store developer portal", default: "Pet Store developer portal" },
  robots: { index: false, follow: false },
};

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return (
    <Providers nonce={nonce} signInPath="/portal/sign-in">
      {children}
    </Providers>
  );
}
