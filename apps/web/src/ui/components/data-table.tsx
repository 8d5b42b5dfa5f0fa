"use client";
/**
 * A list as a table from the `sm` breakpoint up and as cards on phones, from one set of columns; sorting, filtering
 * and paging are the server's. New rows render in the background and long tables are virtualized
 * (docs/architecture.md "Decisions"); while `busy` the list says so (`aria-busy`), and after 250 ms dims and shows a
 * spinner (admin.css).
 */ import { Box, Loader, Stack, Table, useMantineTheme, VisuallyHidden } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { type ReactNode, useDeferredValue, useMemo } from "react";
import { CardRow, type Column, TableRow } from "./data-table-rows";
import { TableScroll } from "./page";
import { Pager, type PagerProps } from "./pager";
import { QueryState, type QueryStateProps } from "./query-state";
import { VIRTUAL_FROM, VirtualRows } from "./virtual-rows";

export type { Column };

export interface DataTableProps<Row> {
  /** Accessible name of the table and of the card list. */
  label: string;
  rows: Row[];
  rowKey(row: Row): string | number;
  columns: Column<Row>[];
  /** Header cells that change with the view (sort buttons, "select all"), kept apart so the rows stay as they are. */
  headers?: Partial<Record<string, Pick<Column<Row>, "header" | "headerProps">>>;
  /** The row's actions: the last table column, and the card's footer on phones. */
  actions?(row: Row): ReactNode;
  /** Shown in the card title line on phones, before the title (e.g. a selection checkbox). */
  cardLead?(row: Row): ReactNode;
  /** On phones, the actions at the end of the card's title line rather than under its lines. */
  compactCards?: boolean;
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
  compactCards,
  minWidth,
  rowProps,
  busy: fetching,
}: DataTableProps<Row>) {
  const wide = useWideViewport();
  const tableColumns = useMemo(() => columns.filter((c) => !c.phoneOnly), [columns]);
  const rows = useDeferredValue(latestRows);
  const busy = fetching || rows !== latestRows;
  if (rows.length === 0) return null;
  const virtual = rows.length >= VIRTUAL_FROM;
  const indicator = busy ? (
    <Loader size="sm" className="list-busy" aria-hidden pos="absolute" top={8} right={8} />
  ) : null;
  if (wide)
    return (
      <Box pos="relative">
        {indicator}
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
                  {tableColumns.map((c) => {
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
                  columns={tableColumns}
                  actions={actions}
                  rowProps={rowProps}
                />
              ) : (
                <Table.Tbody>
                  {rows.map((row) => (
                    <TableRow
                      key={rowKey(row)}
                      row={row}
                      columns={tableColumns}
                      actions={actions}
                      rowProps={rowProps}
                    />
                  ))}
                </Table.Tbody>
              )}
            </Table>
          </TableScroll>
        </Box>
      </Box>
    );
  return (
    <Box pos="relative">
      {indicator}
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
          <CardRow
            key={rowKey(row)}
            row={row}
            columns={columns}
            actions={actions}
            cardLead={cardLead}
            actionsInTitle={compactCards}
          />
        ))}
      </Stack>
    </Box>
  );
}

/** Whether the viewport is `sm` wide or more, read at the first render (rows render in the browser only). */
function useWideViewport(): boolean {
  const theme = useMantineTheme();
  return (
    useMediaQuery(`(min-width: ${theme.breakpoints.sm})`, true, { getInitialValueInEffect: false }) ?? true
  );
}

type Page<Row> = { rows: Row[]; total: number; totalExact?: boolean };

/**
 * A query's rows as a DataTable, with the query's loading, failure and empty states: a list (`Row[]`), or with
 * `pager` one page of a server-paged list (`{ rows, total }`), whose page past the last says so (pager.tsx).
 * While the rows are an earlier input's (a new search, sort or page on its way, `keepPreviousData`) the table is
 * busy; a background refresh of the same input keeps it as it is.
 */
export function QueryTable<Row>({
  query,
  errorTitle,
  empty,
  pager,
  footer,
  ...table
}: Omit<DataTableProps<Row>, "rows" | "busy"> & {
  query: QueryStateProps<Row[] | Page<Row>>["query"];
  errorTitle: string;
  empty?: QueryStateProps<unknown>["empty"];
  pager?: Omit<PagerProps, "total" | "totalExact" | "shown">;
  /** Shown under the rows, e.g. their count. */
  footer?(rows: Row[]): ReactNode;
}) {
  const rowsOf = (data: Row[] | Page<Row>) => (Array.isArray(data) ? data : data.rows);
  return (
    <QueryState
      query={query}
      errorTitle={errorTitle}
      isEmpty={(data) => (Array.isArray(data) ? data.length === 0 : data.total === 0)}
      empty={empty}
    >
      {(data) => (
        <>
          <DataTable rows={rowsOf(data)} busy={query.isPlaceholderData ?? query.isFetching} {...table} />
          {pager && !Array.isArray(data) ? (
            <Pager total={data.total} totalExact={data.totalExact} shown={data.rows.length} {...pager} />
          ) : null}
          {footer?.(rowsOf(data))}
        </>
      )}
    </QueryState>
  );
}
