"use client";
/**
 * An orders list's view in the URL (`?status=placed&account=…&pet=42&id=7&from=2026-11-01&to=2026-11-29&page=2`):
 * `from` and `to` are the viewer's calendar days, both included, sent as `[start of from, day after to)`, as the audit
 * log's (docs/contract.md section 4, "Orders").
 */
import { useDebouncedValue } from "@mantine/hooks";
import { ORDER_STATUSES, type OrderSearch } from "@petstore/contracts";
import { parseAsInteger, parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";

export const ORDERS_PAGE_SIZE = 25;

const params = {
  status: parseAsStringLiteral(ORDER_STATUSES),
  account: parseAsString,
  pet: parseAsString.withDefault(""),
  id: parseAsString.withDefault(""),
  from: parseAsString.withDefault(""),
  to: parseAsString.withDefault(""),
  page: parseAsInteger.withDefault(1),
};

/** `YYYY-MM-DD` (a local calendar day) + `days` as the ISO instant of that local midnight; undefined if invalid. */
function localMidnight(day: string, days = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A typed id: its number, "" for none, or an error for anything but a positive whole number. */
function idOf(text: string): { value?: number; error?: string } {
  const trimmed = text.trim();
  if (!trimmed) return {};
  if (!/^\d{1,15}$/.test(trimmed) || Number(trimmed) < 1) return { error: "Enter a whole number, e.g. 42." };
  return { value: Number(trimmed) };
}

/** The URL state of an orders list, the search input it selects, and the setters that change it. */
export function useOrdersQuery() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const [typed] = useDebouncedValue({ pet: view.pet, id: view.id }, 300);
  const pet = idOf(typed.pet);
  const id = idOf(typed.id);
  const from = localMidnight(view.from);
  const to = localMidnight(view.to, 1);
  const rangeError = from && to && from >= to ? "The end day must not be before the start day." : null;
  const filter: Omit<OrderSearch, "page" | "pageSize"> = {
    ...(view.status ? { status: view.status } : {}),
    ...(view.account ? { accountId: view.account } : {}),
    ...(pet.value ? { petId: pet.value } : {}),
    ...(id.value ? { id: id.value } : {}),
    ...(from ? { from } : {}),
    ...(to && !rangeError ? { to } : {}),
  };
  return {
    view,
    input: { ...filter, page: Math.max(1, view.page), pageSize: ORDERS_PAGE_SIZE },
    errors: { pet: idOf(view.pet).error, id: idOf(view.id).error, range: rangeError },
    filtered: Object.keys(filter).length > 0,
    change: (change: Partial<Omit<typeof view, "page">>) => setView({ ...change, page: null }),
    goTo: (page: number) => setView({ page }, { history: "push" }),
  };
}
