import type { ReactNode } from "react";

export const metadata = { title: "Pet Store", description: "Pet Store API and admin dashboard" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
