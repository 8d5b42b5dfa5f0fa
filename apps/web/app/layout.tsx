import { connection } from "next/server";
import type { ReactNode } from "react";

export const metadata = { title: "Pet Store", description: "Pet Store API and admin dashboard" };

/**
 * Every page renders per request: the Content-Security-Policy nonce (proxy.ts) differs per response, and
 * Next can only put it on the scripts of a page it renders then.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
