/** Any other address under /admin: a 404 answered inside the dashboard's frame (see ../not-found.tsx). */
import { notFound } from "next/navigation";

export default function Missing(): never {
  notFound();
}
