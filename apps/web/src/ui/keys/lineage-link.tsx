"use client";
/** A key of the same lineage (docs/contract.md section 2, "Roll") as a link by its prefix; a dash for none. */
import { Code } from "@mantine/core";
import { RouteLink } from "../components/page";

/** `link` under `base` (`/admin/keys`, `/portal/keys`), named "rolled from/to <prefix>…" by `relation`. */
export function LineageLink({
  link,
  base,
  relation,
}: {
  link: { id: string; prefix: string } | null;
  base: string;
  relation: "from" | "to";
}) {
  if (!link) return "—";
  return (
    <RouteLink href={`${base}/${link.id}`} aria-label={`Rolled ${relation} ${link.prefix}…`}>
      <Code>{link.prefix}…</Code>
    </RouteLink>
  );
}
