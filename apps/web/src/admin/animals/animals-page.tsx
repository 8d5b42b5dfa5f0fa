"use client";
/**
 * Animals: a server-paged table (sort by id or name, filter by status and category, search by name; all
 * of it in the URL; the count stops at 10,000, shown as "10,000+"), create/edit in a dialog, delete after
 * confirmation, and status changes for several selected animals. An animal needs a category: while there is
 * none, "New animal" (in the header and in the empty state alike) is disabled, says why and links to the
 * categories page, and the form never opens.
 */
import { Anchor, Button, Group, Select, Stack, Text, TextInput } from "@mantine/core";
import { PetSearch } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { PageHeader } from "../components/page-header";
import { Pager } from "../components/pager";
import { QueryState } from "../components/query-state";
import { STATUS_LABELS } from "../format";
import { useTRPC } from "../trpc";
import { maxLengthOf } from "../use-zod-form";
import { AnimalFormModal, type EditableAnimal } from "./animal-form-modal";
import { AnimalsTable } from "./animals-table";
import { BulkStatusBar } from "./bulk-status-bar";
import { useAnimalQuery } from "./use-animal-query";

const STATUS_FILTER = [
  { value: "", label: "All statuses" },
  ...(["available", "pending", "sold", "none"] as const).map((value) => ({
    value,
    label: STATUS_LABELS[value],
  })),
];

/**
 * "New animal": opens the form (`onOpen`) once `categoryCount` (undefined while loading) says there is a
 * category; without one, disabled, with the reason and a link to the categories page (`align`: where they sit,
 * at the end in the page header, centred in the empty state).
 */
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
      <Text id={reasonId} size="sm" c="dimmed">
        Every animal has a category.{" "}
        <Anchor component={Link} href="/admin/categories">
          Create a category first
        </Anchor>
      </Text>
    </Stack>
  );
}

export function AnimalsPage() {
  const trpc = useTRPC();
  const query = useAnimalQuery();
  const { view } = query;
  const [selected, setSelected] = useState<number[]>([]);
  const [editing, setEditing] = useState<EditableAnimal | null>(null);
  const [formOpen, setFormOpen] = useState(false);

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
    setFormOpen(true);
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
      <Group gap="sm" mb="md" align="flex-end" wrap="wrap">
        <TextInput
          label="Search by name"
          placeholder="e.g. Rex"
          value={view.q}
          onChange={(e) => filter({ q: e.currentTarget.value })}
          maxLength={maxLengthOf(PetSearch.shape.query)}
          w={{ base: "100%", xs: 220 }}
          type="search"
        />
        <Select
          label="Status"
          data={STATUS_FILTER}
          value={view.status ?? ""}
          onChange={(v) => filter({ status: (v || null) as typeof view.status })}
          allowDeselect={false}
          w={{ base: "47%", xs: 170 }}
        />
        <Select
          label="Category"
          data={categoryOptions}
          value={view.category ? String(view.category) : ""}
          onChange={(v) => filter({ category: v ? Number(v) : null })}
          allowDeselect={false}
          w={{ base: "47%", xs: 190 }}
          searchable
        />
      </Group>
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
      <AnimalFormModal
        opened={formOpen}
        onClose={() => setFormOpen(false)}
        animal={editing}
        categories={categories.data ?? []}
      />
    </>
  );
}
