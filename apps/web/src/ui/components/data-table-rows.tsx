"use client";
/** One row of a DataTable, a table row or a phone card, each memoized: a render of the list keeps unchanged rows. */ import {
  Card,
  Group,
  Stack,
  Table,
  Text,
} from "@mantine/core";
import { memo, type ReactNode } from "react";

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
  /** Shown on phone cards only: a line that sums up several table columns, so that a card stays a few lines. */
  phoneOnly?: boolean;
}

interface RowProps<Row> {
  row: Row;
  columns: Column<Row>[];
  actions?(row: Row): ReactNode;
}

interface TableRowProps<Row> extends RowProps<Row> {
  rowProps?(row: Row): Record<string, unknown>;
  /** In a virtualized body (virtual-rows.tsx): the row's index in the page, and the measuring ref of its `<tr>`. */
  index?: number;
  measure?(element: HTMLTableRowElement | null): void;
}

/** A table row: the columns' cells, then the actions. */
export const TableRow = memo(function TableRow<Row>({
  row,
  columns,
  actions,
  rowProps,
  index,
  measure,
}: TableRowProps<Row>) {
  return (
    <Table.Tr
      {...rowProps?.(row)}
      ref={measure}
      data-index={index}
      aria-rowindex={index === undefined ? undefined : index + 2}
    >
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
  );
}) as <Row>(props: TableRowProps<Row>) => ReactNode;

interface CardRowProps<Row> extends RowProps<Row> {
  cardLead?(row: Row): ReactNode;
  /** The actions at the end of the title line instead of under the lines. */
  actionsInTitle?: boolean;
}

/** A phone card: the lead and the title column, the other columns as labelled lines, then the actions. */
export const CardRow = memo(function CardRow<Row>({
  row,
  columns,
  actions,
  cardLead,
  actionsInTitle,
}: CardRowProps<Row>) {
  const title = columns.find((c) => c.title);
  return (
    <Card withBorder padding="sm" component="li" style={{ listStyle: "none" }}>
      <Group gap="xs" wrap="nowrap" mb={6}>
        {cardLead?.(row)}
        {title ? (
          <Text fw={600} component="div" style={{ minWidth: 0, overflowWrap: "anywhere", flexGrow: 1 }}>
            {title.cell(row)}
          </Text>
        ) : null}
        {actions && actionsInTitle ? actions(row) : null}
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
      {actions && !actionsInTitle ? (
        <Group gap={6} mt="sm" justify="flex-end" wrap="wrap">
          {actions(row)}
        </Group>
      ) : null}
    </Card>
  );
}) as <Row>(props: CardRowProps<Row>) => ReactNode;
