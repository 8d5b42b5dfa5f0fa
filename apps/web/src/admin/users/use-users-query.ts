"use client";
/** The Users list's sort in the URL (`?sort=createdAt&dir=desc`); the default, role (admins first), left out. */
import { type UserListSort, UserSort } from "@petstore/contracts";
import { parseAsStringLiteral, useQueryStates } from "nuqs";

const params = {
  sort: parseAsStringLiteral(UserSort.options).withDefault("role"),
  dir: parseAsStringLiteral(["asc", "desc"] as const).withDefault("asc"),
};

/** Columns whose first click shows the largest or newest first; the others start at the top of their order. */
const FIRST_DESCENDING: ReadonlySet<UserSort> = new Set(["sessions", "createdAt"]);

/** The Users list's URL state, the `users.list` input it selects, and the setters that change it. */
export function useUsersQuery() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const input: UserListSort = { sortBy: view.sort, sortDirection: view.dir };
  return {
    view,
    input,
    /** Sets the sort and its direction (the phones' "Sort by" choice). */
    setSort: (sort: UserSort, dir: "asc" | "desc") => setView({ sort, dir }),
    /** Sorts by `column`, flipping the direction of the sort column; sessions and dates start largest first. */
    sortBy: (column: UserSort) =>
      setView({
        sort: column,
        dir:
          view.sort === column
            ? view.dir === "asc"
              ? "desc"
              : "asc"
            : FIRST_DESCENDING.has(column)
              ? "desc"
              : "asc",
      }),
  };
}
