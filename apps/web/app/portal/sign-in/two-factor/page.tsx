/** Two-factor enrolment of a person who must have it, right after their password sign-in. */
import type { Metadata } from "next";
import { EnrolPage } from "@/ui/people/enrol-page";

export const metadata: Metadata = { title: "Set up two-factor sign-in" };
export const dynamic = "force-dynamic";

export default function Page() {
  return <EnrolPage signIn="/portal/sign-in" />;
}
