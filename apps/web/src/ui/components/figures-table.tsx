"use client";
/** A chart's figures as tables, folded under "Show … as a table", for screen readers and exact numbers. */
import { Accordion, Table } from "@mantine/core";
import { formatNumber } from "../format";
import { TableScroll } from "./page";

type Figure = number | null | undefined;

export interface Figures<K extends string> {
  /** The table's accessible name, and its caption when there are several. */
  label: string;
  /** Header of the first column, which names each row (e.g. "Day (UTC)"). */
  first: string;
  columns: readonly { key: K; label: string; format?(value: Figure): string }[];
  rows: readonly ({ key: string | number; name: string } & Partial<Record<K, Figure>>)[];
}

export function FiguresTable<K extends string>({
  toggle,
  minWidth,
  tables,
}: {
  /** The accordion's control, e.g. "Show the hours as a table". */
  toggle: string;
  minWidth: number;
  tables: Figures<K>[];
}) {
  const several = tables.length > 1;
  return (
    <Accordion mt="md" variant="contained">
      <Accordion.Item value="table">
        <Accordion.Control>{toggle}</Accordion.Control>
        <Accordion.Panel>
          {tables.map(({ label, first, columns, rows }) => (
            <TableScroll key={label} label={label} minWidth={minWidth}>
              <Table striped mb={several ? "md" : undefined}>
                {several ? <Table.Caption>{label}</Table.Caption> : null}
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{first}</Table.Th>
                    {columns.map((c) => (
                      <Table.Th key={c.key} ta="right">
                        {c.label}
                      </Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((r) => (
                    <Table.Tr key={r.key}>
                      <Table.Td>{r.name}</Table.Td>
                      {columns.map((c) => (
                        <Table.Td key={c.key} ta="right">
                          {(c.format ?? formatNumber)(r[c.key])}
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          ))}
        </Accordion.Panel>
      </Accordion.Item>
    </Accordion>
  );
}
