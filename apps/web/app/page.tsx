import { redirect } from "next/navigation";

/** `/` has nothing of its own: send people to the API reference. */
export default function Home(): never {
  redirect("/docs");
}
