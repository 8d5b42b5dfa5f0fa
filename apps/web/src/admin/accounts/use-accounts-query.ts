"use client";
/** The Accounts list's view in the URL (`?q=acme&plan=pro&state=suspended&sort=keys&dir=desc`), defaults left out. */
import { useDebouncedValue } from "@mantine/hooks";
import { type AccountListFilter, AccountState, PlanName } from "@petstore/contracts";
import { parseAsString, parseAsStringLiteral, useQueryStates } from "nuqs";

export const ACCOUNT_SORTS = ["name", "createdAt", "keys", "requestsToday"] as const;
export type AccountSort = (typeof ACCOUNT_SORTS)[number];

const params = {
  q: parseAsString.withDefault(""),
  plan: parseAsStringLiteral(PlanName.options),
  state: parseAsStringLiteral(AccountState.options),
  sort: parseAsStringLiteral(ACCOUNT_SORTS).withDefault("name"),
  dir: parseAsStringLiteral(["asc", "desc"] as const).withDefault("asc"),
};

/** The Accounts list's URL state, the `accounts.list` input it selects, and the setters that change it. */
export function useAccountsQuery() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const [q] = useDebouncedValue(view.q.trim(), 300);
  const input: AccountListFilter = {
    sortBy: view.sort,
    sortDirection: view.dir,
    ...(q ? { query: q } : {}),
    ...(view.plan ? { plan: view.plan } : {}),
    ...(view.state ? { state: view.state } : {}),
  };
  return {
    view,
    input,
    filtered: Boolean(q || view.plan || view.state),
    /** Changes filters or the sort. */
    filter: (change: Partial<typeof view>) => setView(change),
    /** Sorts by `column`, flipping the direction of the sort column; names start A to Z, figures largest first. */
    sortBy: (column: AccountSort) =>
      setView({
        sort: column,
        dir:
          view.sort === column ? (view.dir === "asc" ? "desc" : "asc") : column === "name" ? "asc" : "desc",
      }),
  };
}
