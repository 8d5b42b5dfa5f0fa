"use client";
/**
 * The audit log's view in the URL (`?actor=user:a@b&action=apiKey.revoke&entity=apiKey&id=…&from=2026-11-01
 * &to=2026-11-23&page=3`); `from` and `to` are the viewer's calendar days, sent as `[start of from, day after to)`.
 */
import { useDebouncedValue } from "@mantine/hooks";
import { AUDIT_ACTIONS, AuditEntityType } from "@petstore/contracts";
import { parseAsInteger, parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";

export const AUDIT_PAGE_SIZE = 25;

const params = {
  actor: parseAsString,
  action: parseAsStringLiteral(AUDIT_ACTIONS),
  entity: parseAsStringLiteral(AuditEntityType.options),
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

export function useAuditQuery() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const [entityId] = useDebouncedValue(view.id.trim(), 300);
  const from = localMidnight(view.from);
  const to = localMidnight(view.to, 1);
  const rangeError = from && to && from >= to ? "The end day must not be before the start day." : null;
  const filter = {
    ...(view.actor ? { actor: view.actor } : {}),
    ...(view.action ? { action: view.action } : {}),
    ...(view.entity ? { entityType: view.entity } : {}),
    ...(entityId ? { entityId } : {}),
    ...(from ? { from } : {}),
    ...(to && !rangeError ? { to } : {}),
  };
  return {
    view,
    filter,
    rangeError,
    input: { ...filter, page: Math.max(1, view.page), pageSize: AUDIT_PAGE_SIZE },
    filtered: Object.keys(filter).length > 0,
    change: (change: Partial<Omit<typeof view, "page">>) => setView({ ...change, page: null }),
    goTo: (page: number) => setView({ page }, { history: "push" }),
  };
}
