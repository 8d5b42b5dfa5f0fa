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
 */
import { Box, Card, Group, Stack, Table, Text, useMantineTheme, VisuallyHidden } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import type { ReactNode } from "react";
import { TableScroll } from "./table-scroll";

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
  rows,
  rowKey,
  columns,
  headers,
  actions,
  cardLead,
  minWidth,
  rowProps,
  busy,
}: DataTableProps<Row>) {
  const wide = useWideViewport();
  if (rows.length === 0) return null;
  if (wide)
    return (
      <Box data-refreshing={busy ? "true" : "false"}>
        <TableScroll label={label} minWidth={minWidth}>
          <Table striped highlightOnHover verticalSpacing="xs" aria-busy={busy}>
            <Table.Thead>
              <Table.Tr>
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
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={rowKey(row)} {...rowProps?.(row)}>
                  {columns.map((c) => (
                    <Table.Td key={c.key} ta={c.align} miw={c.minWidth}>
                      {c.cell(row)}
                    </Table.Td>
                  ))}
                  {actions ? (
                    <Table.Td>
                      <Group gap={6} justify="flex-end" wrap="nowrap">
                        {actions(row)}
                      </Group>
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              ))}
            </Table.Tbody>
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
      {rows.map((row) => {
        const title = columns.find((c) => c.title);
        return (
          <Card withBorder padding="sm" component="li" key={rowKey(row)} style={{ listStyle: "none" }}>
            <Group gap="xs" wrap="nowrap" mb={6}>
              {cardLead?.(row)}
              {title ? (
                <Text fw={600} component="div" style={{ minWidth: 0, overflowWrap: "anywhere" }}>
                  {title.cell(row)}
                </Text>
              ) : null}
            </Group>
            <Stack gap={4} component="dl" m={0}>
              {columns
                .filter((c) => !c.title && !c.desktopOnly)
                .map((c) => (
                  <Group key={c.key} gap="xs" justify="space-between" wrap="nowrap" align="flex-start">
                    <Text component="dt" size="xs" c="dimmed" fw={600} style={{ flexShrink: 0 }}>
                      {c.label ?? c.header}
                    </Text>
                    <Text
                      component="dd"
                      size="sm"
                      m={0}
                      ta="right"
                      style={{ minWidth: 0, overflowWrap: "anywhere" }}
                    >
                      {c.cell(row)}
                    </Text>
                  </Group>
                ))}
            </Stack>
            {actions ? (
              <Group gap={6} mt="sm" justify="flex-end" wrap="wrap">
                {actions(row)}
              </Group>
            ) : null}
          </Card>
        );
      })}
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
