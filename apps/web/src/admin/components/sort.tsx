"use client";
/**
 * Sorting a server-sorted list: header buttons that say the direction (and `aria-sort`), and on phones, whose
 * cards have no header row, a "Sort by" choice above the list.
 */
import { Group, Select, UnstyledButton, VisuallyHidden } from "@mantine/core";
import type { ReactNode } from "react";

type Direction = "asc" | "desc";

/** A sortable column's header button: the current direction, or that the column can be sorted. */
function SortButton({
  label,
  active,
  direction,
  onSort,
}: {
  label: string;
  active: boolean;
  direction: Direction;
  onSort(): void;
}) {
  return (
    <UnstyledButton onClick={onSort} fw={700} fz="sm">
      {/* A narrow column wraps its header between words, the arrow staying with the last one. */}
      {label}&nbsp;{active ? (direction === "asc" ? "▲" : "▼") : "↕"}
      {active ? null : <VisuallyHidden>, sortable</VisuallyHidden>}
    </UnstyledButton>
  );
}

/** DataTable `headers` for the sortable columns (`labels` by column key) of a list sorted by `sort` and `dir`. */
export function sortHeaders<C extends string>(
  labels: Partial<Record<C, string>>,
  view: { sort: C; dir: Direction },
  onSort: (column: C) => void,
) {
  return Object.fromEntries(
    (Object.entries(labels) as [C, string][]).map(([column, label]) => {
      const active = view.sort === column;
      return [
        column,
        {
          header: (
            <SortButton label={label} active={active} direction={view.dir} onSort={() => onSort(column)} />
          ),
          headerProps: { "aria-sort": active ? (view.dir === "asc" ? "ascending" : "descending") : "none" },
        },
      ];
    }),
  );
}

/** The phones' "Sort by" of `options` (`column-dir` values), beside `children`. */
export function PhoneSort<C extends string>({
  options,
  view,
  onChange,
  children,
}: {
  options: { value: `${C}-${Direction}`; label: string }[];
  view: { sort: C; dir: Direction };
  onChange(sort: C, dir: Direction): void;
  children?: ReactNode;
}) {
  const value = `${view.sort}-${view.dir}`;
  return (
    <Group
      hiddenFrom="sm"
      justify={children ? "space-between" : "flex-end"}
      align="flex-end"
      mb="sm"
      wrap="nowrap"
    >
      {children}
      <Select
        label="Sort by"
        data={options}
        value={options.some((o) => o.value === value) ? value : null}
        onChange={(v) => {
          if (!v) return;
          const at = v.lastIndexOf("-");
          onChange(v.slice(0, at) as C, v.slice(at + 1) as Direction);
        }}
        allowDeselect={false}
        w={children ? 150 : 200}
        size="xs"
      />
    </Group>
  );
}
