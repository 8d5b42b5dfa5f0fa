"use client";
/**
 * A list shown as a Mantine Table from the `sm` breakpoint up and as a stack of Mantine Cards on phones,
 * from one set of column definitions, so phones never scroll sideways and every row's actions stay
 * visible. Only layout lives here: sorting, filtering and paging are the server's (each page's query).
 * Only the layout the viewport calls for is rendered (a 100-row page is one layout's work, and assistive
 * technology meets each row once); it follows the viewport as it changes. Without rows it shows
 * nothing: a list with no matches shows its empty state, a page past the last one the pager's notice (pager.tsx).
 * While `busy` (the rows shown are the previous filter's, sort's or page's, and the new ones are on their way) the
 * list says so to assistive technology (`aria-busy`) and, after a quarter second, dims (admin.css), so a person
 * does not act on rows about to change and a fast answer causes no flicker.
 *
 * New rows are drawn in the background (`useDeferredValue`): a page of 100 rows takes a few hundred milliseconds of
 * rendering on a slow machine, and a keystroke or a click meanwhile interrupts it instead of waiting for it; the
 * list stays busy until they are shown. A table of VIRTUAL_FROM rows or more renders only the rows near the
 * viewport (virtual-rows.tsx); shorter ones, and the cards, are drawn whole. Each row is memoized
 * (data-table-rows.tsx), so a change of the headers or of `busy` leaves the rows as they are; callers keep
 * `columns`, `actions`, `rowKey` and `rowProps` stable.
 */
import { Box, Stack, Table, useMantineTheme, VisuallyHidden } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { type ReactNode, useDeferredValue } from "react";
import { CardRow, TableRow } from "./data-table-rows";
import { TableScroll } from "./table-scroll";
import { VIRTUAL_FROM, VirtualRows } from "./virtual-rows";

export interface Column<Row> {
  key: string;
  /** Header cell content (a sort button, for instance); also the label on phone cards unless `label`. */
  header: ReactNode;
  /** Plain label for phone cards when `header` is not plain text. */
  label?: string;
  cell(row: Row): ReactNode;
  align?: "left" | "right";
  /** Minimum width of the table column in px (so badges and dates are not cut). */
  minWidth?: number;
  /** Extra props of the header cell (e.g. `aria-sort`). */
  headerProps?: Record<string, unknown>;
  /** On phone cards: shown as the card's title instead of a labelled line. */
  title?: boolean;
  /** Hidden on phone cards (e.g. a selection checkbox already in the title line). */
  desktopOnly?: boolean;
}

export interface DataTableProps<Row> {
  /** Accessible name of the table (and the card list). */
  label: string;
  rows: Row[];
  rowKey(row: Row): string | number;
  columns: Column<Row>[];
  /**
   * Header cells that change with the view (a sort button, "select all"), by column key, in place of the columns'
   * own: kept apart so that a change of them leaves `columns`, and so the rows, as they are (not re-rendered).
   */
  headers?: Partial<Record<string, Pick<Column<Row>, "header" | "headerProps">>>;
  /** The row's actions: the last table column, and the card's footer on phones. */
  actions?(row: Row): ReactNode;
  /** Shown in the card title line on phones, before the title (e.g. a selection checkbox). */
  cardLead?(row: Row): ReactNode;
  /** Minimum table width before it scrolls inside its frame (desktop). */
  minWidth: number;
  rowProps?(row: Row): Record<string, unknown>;
  busy?: boolean;
}

export function DataTable<Row>({
  label,
  rows: latestRows,
  rowKey,
  columns,
  headers,
  actions,
  cardLead,
  minWidth,
  rowProps,
  busy: fetching,
}: DataTableProps<Row>) {
  const wide = useWideViewport();
  const rows = useDeferredValue(latestRows);
  const busy = fetching || rows !== latestRows;
  if (rows.length === 0) return null;
  const virtual = rows.length >= VIRTUAL_FROM;
  if (wide)
    return (
      <Box data-refreshing={busy ? "true" : "false"}>
        <TableScroll label={label} minWidth={minWidth}>
          <Table
            striped
            highlightOnHover
            verticalSpacing="xs"
            aria-busy={busy}
            aria-rowcount={virtual ? rows.length + 1 : undefined}
          >
            <Table.Thead>
              <Table.Tr aria-rowindex={virtual ? 1 : undefined}>
                {columns.map((c) => {
                  const head = headers?.[c.key] ?? c;
                  return (
                    <Table.Th key={c.key} ta={c.align} {...head.headerProps}>
                      {head.header}
                    </Table.Th>
                  );
                })}
                {actions ? (
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                ) : null}
              </Table.Tr>
            </Table.Thead>
            {virtual ? (
              <VirtualRows
                rows={rows}
                rowKey={rowKey}
                columns={columns}
                actions={actions}
                rowProps={rowProps}
              />
            ) : (
              <Table.Tbody>
                {rows.map((row) => (
                  <TableRow
                    key={rowKey(row)}
                    row={row}
                    columns={columns}
                    actions={actions}
                    rowProps={rowProps}
                  />
                ))}
              </Table.Tbody>
            )}
          </Table>
        </TableScroll>
      </Box>
    );
  return (
    <Stack
      gap="sm"
      component="ul"
      aria-label={label}
      p={0}
      m={0}
      aria-busy={busy}
      data-refreshing={busy ? "true" : "false"}
    >
      {rows.map((row) => (
        <CardRow key={rowKey(row)} row={row} columns={columns} actions={actions} cardLead={cardLead} />
      ))}
    </Stack>
  );
}

/**
 * Whether the viewport is at least the theme's `sm` breakpoint wide (the table; below it, the cards). Read at the
 * first render, which for rows is always in the browser: they come from a query the server never runs.
 */
function useWideViewport(): boolean {
  const theme = useMantineTheme();
  return (
    useMediaQuery(`(min-width: ${theme.breakpoints.sm})`, true, { getInitialValueInEffect: false }) ?? true
  );
}
