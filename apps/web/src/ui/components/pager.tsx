"use client";
/**
 * "21–40 of 132", the page size and the page buttons under a server-paged list; "10,000+" and one page more where
 * the server stopped counting, and a way back from a page past the last (docs/contract.md section 4).
 */
import { Button, EmptyState, Group, Pagination, Select } from "@mantine/core";
import { DEFAULT_PAGE_SIZE } from "@petstore/contracts";
import { formatNumber } from "../format";
import { Hint } from "./page";

export const PAGE_SIZES = [10, 20, 50, 100] as const;

/** The last page of a list of `total` rows when page `page` (1-based, `shown` rows) lies past it, else null. */
export function lastPageIfPast({
  page,
  pageSize,
  total,
  shown,
}: {
  page: number;
  pageSize: number;
  total: number;
  shown: number;
}): number | null {
  if (shown > 0 || total === 0 || page <= 1) return null;
  const last = Math.max(1, Math.ceil(total / pageSize));
  return page > last ? last : null;
}

export interface PagerProps {
  /** Plural noun for the accessible name of the page-size select, e.g. "Animals". */
  what: string;
  page: number;
  pageSize: number;
  total: number;
  /** False when `total` is a lower bound (the server counts no further): shown as "10,000+". */
  totalExact?: boolean;
  /** Rows on this page. */
  shown: number;
  onPage(page: number): void;
  onPageSize?(size: number): void;
}

export function Pager({
  what,
  page,
  pageSize,
  total,
  totalExact = true,
  shown,
  onPage,
  onPageSize,
}: PagerProps) {
  const last = lastPageIfPast({ page, pageSize, total, shown });
  if (last !== null) {
    return (
      <EmptyState
        title={`Page ${formatNumber(page)} has nothing on it`}
        description={`${what} end on page ${formatNumber(last)} (${formatNumber(total)} in total).`}
        py="xl"
      >
        <EmptyState.Actions>
          <Button onClick={() => onPage(last)}>Go to page {formatNumber(last)}</Button>
        </EmptyState.Actions>
      </EmptyState>
    );
  }
  const pages = Math.max(1, Math.ceil(total / pageSize) + (totalExact ? 0 : 1), totalExact ? 1 : page);
  const first = (page - 1) * pageSize + 1;
  const of = totalExact ? formatNumber(total) : `${formatNumber(total)}+`;
  return (
    <Group justify="space-between" mt="md" gap="sm">
      <Hint aria-live="polite">
        {shown > 0 ? `${formatNumber(first)}–${formatNumber(first + shown - 1)} of ${of}` : `${of} in total`}
      </Hint>
      <Group gap="sm">
        {onPageSize ? (
          <Select
            aria-label={`${what} per page`}
            data={PAGE_SIZES.map(String)}
            value={String(pageSize)}
            onChange={(v) => onPageSize(Number(v ?? DEFAULT_PAGE_SIZE))}
            allowDeselect={false}
            w={80}
            size="xs"
          />
        ) : null}
        <Pagination
          total={pages}
          value={Math.min(page, pages)}
          onChange={onPage}
          size="sm"
          siblings={0}
          getControlProps={(control) => ({ "aria-label": `${control} page` })}
          getItemProps={(p) => ({ "aria-label": `Page ${p}` })}
        />
      </Group>
    </Group>
  );
}
