import type { Metadata } from "next";
import { AnimalsPage } from "@/admin/animals/animals-page";

export const metadata: Metadata = { title: "Animals" };

export default function Page() {
  return <AnimalsPage />;
}
