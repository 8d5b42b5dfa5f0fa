import { connection } from "next/server";
import type { ReactNode } from "react";

export const metadata = { title: "Pet Store", description: "Pet Store API and admin dashboard" };

/** Every page renders per request: the CSP nonce (proxy.ts) differs per response, and Next puts it on its scripts. */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
