"use client";
/**
 * Animals: a server-paged list searched, filtered and sorted in the URL (the count stops at 10,000: "10,000+"),
 * added and edited in a dialog, deleted after confirming, several given a status at once. Without a category,
 * "New animal" is disabled and says why.
 */
import { Button, Stack } from "@mantine/core";
import { PetSearch } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useId, useState } from "react";
import { FilterBar, FilterSelect, SearchFilter } from "@/admin/components/filters";
import { Hint, PageHeader, RouteLink } from "@/ui/components/page";
import { Pager } from "@/ui/components/pager";
import { QueryState } from "@/ui/components/query-state";
import { STATUS_LABELS } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";
import type { EditableAnimal } from "./animal-dialog";
import { AnimalsTable } from "./animals-table";
import { useAnimalQuery } from "./use-animal-query";

// The form and the bulk bar load after the list: the first screen needs neither (docs/performance.md "The animals
// page's first load"). The bar stays mounted once loaded, so that its undo notice outlives the selection.
const AnimalDialog = dynamic(() => import("./animal-dialog").then((m) => m.AnimalDialog), { ssr: false });
const BulkStatusBar = dynamic(() => import("./bulk-status-bar").then((m) => m.BulkStatusBar), { ssr: false });

const STATUS_FILTER = [
  { value: "", label: "All statuses" },
  ...(["available", "pending", "sold", "none"] as const).map((value) => ({
    value,
    label: STATUS_LABELS[value],
  })),
];

/** "New animal", once `categoryCount` (undefined while loading) says there is a category; else why it is disabled. */
function NewAnimalAction({
  categoryCount,
  onOpen,
  align = "flex-end",
}: {
  categoryCount: number | undefined;
  onOpen(): void;
  align?: "flex-end" | "center";
}) {
  const reasonId = useId();
  if (categoryCount !== 0) {
    return (
      <Button onClick={onOpen} disabled={categoryCount === undefined}>
        New animal
      </Button>
    );
  }
  return (
    <Stack gap={4} align={align}>
      <Button disabled aria-describedby={reasonId}>
        New animal
      </Button>
      <Hint id={reasonId}>
        Every animal has a category. <RouteLink href="/admin/categories">Create a category first</RouteLink>
      </Hint>
    </Stack>
  );
}

export function AnimalsPage() {
  const trpc = useTRPC();
  const query = useAnimalQuery();
  const { view } = query;
  const [selected, setSelected] = useState<number[]>([]);
  // The animal being edited, null for a new one, undefined while the dialog is closed.
  const [editing, setEditing] = useState<EditableAnimal | null | undefined>(undefined);

  const pets = useQuery({ ...trpc.pets.search.queryOptions(query.input), placeholderData: keepPreviousData });
  const categories = useQuery(trpc.categories.list.queryOptions());

  const filter = (change: Parameters<typeof query.filter>[0]) => {
    query.filter(change);
    setSelected([]);
  };
  const categoryCount = categories.data?.length;
  const openForm = (animal: EditableAnimal | null) => {
    // A new animal needs a category to choose: the form never opens with an empty list.
    if (!animal && !categoryCount) return;
    setEditing(animal);
  };
  const categoryOptions = [
    { value: "", label: "All categories" },
    ...(categories.data ?? []).map((c) => ({ value: String(c.id), label: c.name })),
  ];

  return (
    <>
      <PageHeader
        title="Animals"
        description="Every animal in the store. Changes show in the public API at once."
        actions={<NewAnimalAction categoryCount={categoryCount} onOpen={() => openForm(null)} />}
      />
      <FilterBar>
        <SearchFilter
          label="Search by name"
          placeholder="e.g. Rex"
          value={view.q}
          onChange={(q) => filter({ q })}
          schema={PetSearch.shape.query}
          w={{ base: "100%", xs: 220 }}
        />
        <FilterSelect
          label="Status"
          data={STATUS_FILTER}
          value={view.status}
          onChange={(status) => filter({ status })}
          w={{ base: "47%", xs: 170 }}
        />
        <FilterSelect
          label="Category"
          data={categoryOptions}
          value={view.category ? String(view.category) : null}
          onChange={(v) => filter({ category: v ? Number(v) : null })}
          w={{ base: "47%", xs: 190 }}
          searchable
        />
      </FilterBar>
      <BulkStatusBar ids={selected} onDone={() => setSelected([])} />
      <QueryState
        query={pets}
        errorTitle="Could not load the animals"
        isEmpty={(d) => d.total === 0}
        empty={{
          title: query.filtered ? "No animals match" : "No animals yet",
          description: query.filtered
            ? "Try another name, status or category."
            : "Add the first animal to the store.",
          action: query.filtered ? undefined : (
            <NewAnimalAction categoryCount={categoryCount} onOpen={() => openForm(null)} align="center" />
          ),
        }}
      >
        {(data) => (
          <>
            <AnimalsTable
              rows={data.rows}
              busy={pets.isFetching}
              query={query}
              selected={selected}
              setSelected={setSelected}
              onEdit={openForm}
            />
            <Pager
              what="Animals"
              page={query.input.page}
              pageSize={query.input.pageSize}
              total={data.total}
              totalExact={data.totalExact}
              shown={data.rows.length}
              onPage={(p) => {
                query.goTo(p);
                setSelected([]);
              }}
              onPageSize={(size) => filter({ size: size as typeof view.size })}
            />
          </>
        )}
      </QueryState>
      {editing !== undefined ? (
        <AnimalDialog
          animal={editing}
          categories={categories.data ?? []}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
    </>
  );
}
