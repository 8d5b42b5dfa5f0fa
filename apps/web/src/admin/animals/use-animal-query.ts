"use client";
/** The animals list's view in the URL (`?q=rex&status=sold&category=3&sort=name&dir=desc&page=2&size=50`). */
import { useDebouncedValue } from "@mantine/hooks";
import type { PetSearch } from "@petstore/contracts";
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
  status: parseAsStringLiteral(["available", "pending", "sold", "none"] as const),
  category: parseAsInteger,
  sort: parseAsStringLiteral(["id", "name"] as const).withDefault("id"),
  dir: parseAsStringLiteral(["asc", "desc"] as const).withDefault("asc"),
  page: parseAsInteger.withDefault(1),
  size: parseAsNumberLiteral(PAGE_SIZES).withDefault(20),
};

export function useAnimalQuery() {
  const [view, setView] = useQueryStates(params, { history: "replace" });
  const [debouncedQ] = useDebouncedValue(view.q.trim(), 300);
  const input: PetSearch = {
    page: Math.max(1, view.page),
    pageSize: view.size,
    sortBy: view.sort,
    sortDirection: view.dir,
    ...(view.status ? { status: view.status } : {}),
    ...(view.category && view.category > 0 ? { categoryId: view.category } : {}),
    ...(debouncedQ ? { query: debouncedQ } : {}),
  };
  return {
    view,
    input,
    filtered: Boolean(view.status || view.category || debouncedQ),
    /** Changes filters (back to page 1). */
    filter: (change: Partial<Omit<typeof view, "page">>) => setView({ ...change, page: null }),
    /** Sorts by `column`, flipping the direction when it already is the sort column. */
    sortBy: (column: "id" | "name") =>
      setView({
        sort: column,
        dir: view.sort === column && view.dir === "asc" ? "desc" : "asc",
        page: null,
      }),
    /** Goes to a page (a new history entry, so Back returns to the previous page). */
    goTo: (page: number) => setView({ page }, { history: "push" }),
  };
}
