/**
 * Horizontal scroll container for wide tables on narrow screens (Mantine Table.ScrollContainer), focusable
 * so keyboard users can scroll it, and `position: relative` so visually hidden header text stays inside it.
 */
import { Table } from "@mantine/core";
import type { ReactNode } from "react";

export function TableScroll({
  label,
  minWidth,
  children,
}: {
  label: string;
  minWidth: number;
  children: ReactNode;
}) {
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      type="native"
      tabIndex={0}
      aria-label={label}
      role="region"
      style={{ position: "relative" }}
    >
      {children}
    </Table.ScrollContainer>
  );
}
