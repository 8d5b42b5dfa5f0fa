/** The dashboard's 404, inside its frame (the navigation stays). */
import type { Metadata } from "next";
import { NotFoundNotice } from "@/ui/components/page";

export const metadata: Metadata = { title: "Page not found" };

export default function NotFound() {
  return <NotFoundNotice />;
}
