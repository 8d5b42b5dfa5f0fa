"use client";
/**
 * A chart's figures as a table, folded under "Show … as a table": for whoever cannot read the chart (screen
 * readers, exact numbers). `rows` in the order shown; `columns` the figures, each formatted as a number.
 */
import { Accordion, Table } from "@mantine/core";
import { formatNumber } from "../format";
import { TableScroll } from "./table-scroll";

export interface FiguresTableProps<K extends string> {
  /** The accordion's control, e.g. "Show the hours as a table". */
  toggle: string;
  /** Accessible name of the table. */
  label: string;
  minWidth: number;
  /** Header of the first column, which names each row (e.g. "Day (UTC)"). */
  first: string;
  columns: readonly { key: K; label: string }[];
  rows: readonly ({ key: string | number; name: string } & Record<K, number>)[];
}

export function FiguresTable<K extends string>({
  toggle,
  label,
  minWidth,
  first,
  columns,
  rows,
}: FiguresTableProps<K>) {
  return (
    <Accordion mt="md" variant="contained">
      <Accordion.Item value="table">
        <Accordion.Control>{toggle}</Accordion.Control>
        <Accordion.Panel>
          <TableScroll label={label} minWidth={minWidth}>
            <Table striped>
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
                        {formatNumber(r[c.key])}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
        </Accordion.Panel>
      </Accordion.Item>
    </Accordion>
  );
}
