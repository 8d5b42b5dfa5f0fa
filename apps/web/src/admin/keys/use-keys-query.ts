"use client";
/** The API keys list's view in the URL (`?q=acme&plan=pro&state=working&activity=refused7d&sort=lastUsed&page=2`). */
import { useDebouncedValue } from "@mantine/hooks";
import { ApiKeyActivityFilter, ApiKeySort, ApiKeyStateFilter, PlanName } from "@petstore/contracts";
import {
  parseAsInteger,
  parseAsNumberLiteral,
  parseAsString,
  parseAsStringLiteral,
  useQueryStates,
} from "nuqs";
import { PAGE_SIZES } from "@/ui/components/pager";

const params = {
  q: parseAsString.withDefault(""),
  plan: parseAsStringLiteral(PlanName.options),
  state: parseAsStringLiteral(ApiKeyStateFilter.options),
  activity: parseAsStringLiteral(ApiKeyActivityFilter.options),
  sort: parseAsStringLiteral(ApiKeySort.options).withDefault("created"),
  page: parseAsInteger.withDefault(1),
  size: parseAsNumberLiteral(PAGE_SIZES).withDefault(20),
};

/** The keys list's URL state, the `apiKeys.list` input it selects, and the setters that change it. */
export function useKeysQuery() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const [q] = useDebouncedValue(view.q.trim(), 300);
  return {
    view,
    input: {
      page: Math.max(1, view.page),
      pageSize: view.size,
      ...(q ? { query: q } : {}),
      ...(view.plan ? { plan: view.plan } : {}),
      ...(view.state ? { state: view.state } : {}),
      ...(view.activity ? { activity: view.activity } : {}),
      sort: view.sort,
    },
    filtered: Boolean(q || view.plan || view.state || view.activity),
    /** Changes filters or the page size (back to page 1). */
    filter: (change: Partial<Omit<typeof view, "page">>) => setView({ ...change, page: null }),
    /** Goes to a page (a new history entry, so Back returns to the previous page). */
    goTo: (page: number) => setView({ page }, { history: "push" }),
  };
}
