/** The admins' pages: staff who reach one see a notice instead, and a detail page's record must exist. */
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import type { z } from "zod";
import { currentUser, requireRecord } from "@/server/next-child/page-auth";
import type { RecordKind } from "@/server/next-child-protocol";
import { Notice } from "@/ui/components/page";

/**
 * `page` for an admin, else the "Admins only" notice. With `record`: a 404 (not-found.tsx) for an id its schema
 * refuses or that names no record of its kind (docs/contract.md section 4).
 */
export async function adminsOnly(
  page: ReactNode,
  record?: { kind: RecordKind; id: string; schema: z.ZodType },
) {
  if (record && !record.schema.safeParse(record.id).success) notFound();
  if ((await currentUser())?.role !== "admin")
    return (
      <Notice title="Admins only" back={["/admin", "Back to the overview"]}>
        This page is only available to admins. Ask an admin if you need access.
      </Notice>
    );
  if (record) await requireRecord(record.kind, record.id);
  return page;
}
