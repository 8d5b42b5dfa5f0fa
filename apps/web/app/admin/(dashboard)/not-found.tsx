/** The dashboard's 404: inside the layout (navigation stays), with a way back. */
import type { Metadata } from "next";
import { NotFoundNotice } from "@/admin/shell";

export const metadata: Metadata = { title: "Page not found" };

export default function NotFound() {
  return <NotFoundNotice />;
}
