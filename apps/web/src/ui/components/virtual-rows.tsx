"use client";
/**
 * The body of a long table: only the rows near the viewport, measured by TanStack Virtual's window virtualizer,
 * between spacer rows; `aria-rowindex` on each row, and the focused row stays drawn (docs/architecture.md "Decisions").
 */ import { Table } from "@mantine/core";
import { defaultRangeExtractor, useWindowVirtualizer } from "@tanstack/react-virtual";
import { type FocusEvent, type ReactNode, useLayoutEffect, useRef, useState } from "react";
import { type Column, TableRow } from "./data-table-rows";

/** The row count from which a table renders only the rows near the viewport; shorter pages are drawn whole. */
export const VIRTUAL_FROM = 50;

/** A row's height before it is measured (one line of text, or a badge, at the table's spacing). */
const ESTIMATED_ROW_PX = 45;

/** Rows drawn beyond each edge of the viewport: enough for a step of the focus or of the mouse wheel. */
const OVERSCAN = 6;

/** The rows of `rows` near the viewport, in a `<tbody>`; the table carries `aria-rowcount` (rows + 1). */
export function VirtualRows<Row>({
  rows,
  rowKey,
  columns,
  actions,
  rowProps,
}: {
  rows: Row[];
  rowKey(row: Row): string | number;
  columns: Column<Row>[];
  actions?(row: Row): ReactNode;
  rowProps?(row: Row): Record<string, unknown>;
}) {
  // The React Compiler is off here: the virtualizer is one object whose state changes inside it, which memoized
  // renders would not see.
  "use no memo";
  const body = useRef<HTMLTableSectionElement>(null);
  const [top, setTop] = useState(0);
  // Where the rows start in the document: what is above the table (filters, a bulk bar) may change its height.
  useLayoutEffect(() => {
    const start = (body.current?.getBoundingClientRect().top ?? 0) + window.scrollY;
    setTop((previous) => (Math.abs(previous - start) < 1 ? previous : start));
  });
  // The row holding the focus, drawn with its neighbours whatever the scroll: the focus is not lost when the row
  // scrolls away, and Tab finds the next row drawn before the scroll that the focus causes draws it.
  const [focused, setFocused] = useState<number | null>(null);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: OVERSCAN,
    scrollMargin: top,
    getItemKey: (index) => rowKey(rows[index] as Row),
    rangeExtractor: (range) =>
      focused === null || focused >= range.count
        ? defaultRangeExtractor(range)
        : defaultRangeExtractor({
            ...range,
            startIndex: Math.max(0, Math.min(range.startIndex, focused - 1)),
            endIndex: Math.min(range.count - 1, Math.max(range.endIndex, focused + 1)),
          }),
  });
  const onFocus = (event: FocusEvent<HTMLTableSectionElement>) => {
    const index = Number((event.target as HTMLElement).closest("tr")?.dataset.index);
    setFocused(Number.isInteger(index) ? index : null);
  };
  const onBlur = (event: FocusEvent<HTMLTableSectionElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setFocused(null);
  };
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  const before = first ? first.start - top : 0;
  const after = last ? virtualizer.getTotalSize() - (last.end - top) : 0;
  // Striping counts rows of the body (`:nth-of-type`): as many spacers before the first row as keep each row's
  // stripe that of its index (none at the top, one before an odd index, two before an even one).
  const spacers = !first || first.index === 0 ? 0 : first.index % 2 === 1 ? 1 : 2;
  return (
    <Table.Tbody ref={body} onFocus={onFocus} onBlur={onBlur}>
      {spacers > 0 ? <Spacer height={before} /> : null}
      {spacers > 1 ? <Spacer height={0} /> : null}
      {items.map((item) => (
        <TableRow
          key={item.key}
          row={rows[item.index] as Row}
          columns={columns}
          actions={actions}
          rowProps={rowProps}
          index={item.index}
          measure={virtualizer.measureElement}
        />
      ))}
      {after > 0 ? <Spacer height={after} /> : null}
    </Table.Tbody>
  );
}

/** An empty row `height` px tall standing for rows not rendered; assistive technology skips it. */
function Spacer({ height }: { height: number }) {
  // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an empty row holds nothing that takes the focus.
  return <tr aria-hidden="true" style={{ height }} />;
}
