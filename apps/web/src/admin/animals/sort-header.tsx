"use client";
/** A sortable column's header button: says the current direction, and that other columns can be sorted. */
import { UnstyledButton, VisuallyHidden } from "@mantine/core";

export function SortButton({
  label,
  active,
  direction,
  onSort,
}: {
  label: string;
  active: boolean;
  direction: "asc" | "desc";
  onSort(): void;
}) {
  return (
    <UnstyledButton onClick={onSort} fw={700} fz="sm" style={{ whiteSpace: "nowrap" }}>
      {label} {active ? (direction === "asc" ? "▲" : "▼") : "↕"}
      {active ? null : <VisuallyHidden>, sortable</VisuallyHidden>}
    </UnstyledButton>
  );
}

/** `aria-sort` of a column header. */
export const ariaSort = (active: boolean, direction: "asc" | "desc") =>
  active ? (direction === "asc" ? "ascending" : "descending") : "none";
