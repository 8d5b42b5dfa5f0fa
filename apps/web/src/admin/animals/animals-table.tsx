"use client";
/**
 * One page of animals: select for bulk changes, sort by id or name, edit, delete after confirming. On phones, where
 * the rows are cards without a header row, "Select all on this page" and a "Sort by" choice stand above them.
 */
import { Badge, Button, Checkbox, Group, Select } from "@mantine/core";
import type { RouterOutputs } from "@/server/trpc/router";
import { ConfirmAction } from "../components/confirm-action";
import { type Column, DataTable } from "../components/data-table";
import { notifySuccess } from "../feedback";
import { formatDateTime, STATUS_COLORS, STATUS_LABELS } from "../format";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import type { EditableAnimal } from "./animal-form-modal";
import { ariaSort, SortButton } from "./sort-header";
import type { useAnimalQuery } from "./use-animal-query";

type Animal = RouterOutputs["pets"]["search"]["rows"][number];

const PHONE_SORTS = [
  { value: "id-asc", label: "ID, oldest first" },
  { value: "id-desc", label: "ID, newest first" },
  { value: "name-asc", label: "Name, A to Z" },
  { value: "name-desc", label: "Name, Z to A" },
];

export function AnimalsTable({
  rows,
  busy,
  query,
  selected,
  setSelected,
  onEdit,
}: {
  rows: Animal[];
  busy: boolean;
  query: ReturnType<typeof useAnimalQuery>;
  selected: number[];
  setSelected(update: (ids: number[]) => number[]): void;
  onEdit(animal: EditableAnimal): void;
}) {
  const trpc = useTRPC();
  const remove = useNotifiedMutation(trpc.pets.remove.mutationOptions(), {
    invalidate: [trpc.pets.pathKey(), trpc.categories.pathKey(), trpc.overview.pathKey()],
    failure: "Could not delete the animal",
  });
  const { sort, dir } = query.view;
  const pageIds = rows.map((r) => r.id);
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.includes(id));
  const someSelected = pageIds.some((id) => selected.includes(id));
  const toggleAll = () => setSelected(() => (allSelected ? [] : pageIds));
  const selectBox = (pet: Animal) => (
    <Checkbox
      aria-label={`Select ${pet.name}`}
      checked={selected.includes(pet.id)}
      onChange={(e) => {
        const checked = e.currentTarget.checked;
        setSelected((s) => (checked ? [...s, pet.id] : s.filter((id) => id !== pet.id)));
      }}
    />
  );
  const sortable = (
    label: string,
    column: "id" | "name",
  ): Pick<Column<Animal>, "header" | "label" | "headerProps"> => ({
    header: (
      <SortButton
        label={label}
        active={sort === column}
        direction={dir}
        onSort={() => query.sortBy(column)}
      />
    ),
    label,
    headerProps: { "aria-sort": ariaSort(sort === column, dir) },
  });
  const columns: Column<Animal>[] = [
    {
      key: "select",
      header: (
        <Checkbox
          aria-label="Select all animals on this page"
          checked={allSelected}
          indeterminate={someSelected && !allSelected}
          onChange={toggleAll}
        />
      ),
      headerProps: { w: 40 },
      cell: selectBox,
      desktopOnly: true,
    },
    { key: "id", ...sortable("ID", "id"), cell: (p) => p.id },
    { key: "name", ...sortable("Name", "name"), cell: (p) => p.name, title: true },
    { key: "category", header: "Category", cell: (p) => p.categoryName },
    {
      key: "status",
      header: "Status",
      cell: (p) => (
        <Badge variant="light" color={STATUS_COLORS[p.status ?? "none"]}>
          {STATUS_LABELS[p.status ?? "none"]}
        </Badge>
      ),
    },
    { key: "updated", header: "Updated", cell: (p) => formatDateTime(p.updatedAt) },
  ];
  return (
    <>
      <Group hiddenFrom="sm" justify="space-between" align="flex-end" mb="sm" wrap="nowrap">
        <Checkbox
          label="Select all on this page"
          checked={allSelected}
          indeterminate={someSelected && !allSelected}
          onChange={toggleAll}
        />
        <Select
          label="Sort by"
          data={PHONE_SORTS}
          value={`${sort}-${dir}`}
          onChange={(v) => {
            const [column, direction] = (v ?? "id-asc").split("-") as ["id" | "name", "asc" | "desc"];
            query.filter({ sort: column, dir: direction });
          }}
          allowDeselect={false}
          w={150}
          size="xs"
        />
      </Group>
      <DataTable
        label="Animals table"
        rows={rows}
        rowKey={(p) => p.id}
        columns={columns}
        minWidth={760}
        busy={busy}
        cardLead={selectBox}
        rowProps={(p) => ({ bg: selected.includes(p.id) ? "var(--mantine-color-teal-light)" : undefined })}
        actions={(pet) => (
          <>
            <Button size="xs" variant="default" aria-label={`Edit ${pet.name}`} onClick={() => onEdit(pet)}>
              Edit
            </Button>
            <ConfirmAction
              label="Delete"
              ariaLabel={`Delete ${pet.name}`}
              title={`Delete ${pet.name}?`}
              message={`${pet.name} (#${pet.id}) will be removed from the store and the public API. This cannot be undone.`}
              confirmLabel="Delete animal"
              onConfirm={async () => {
                await remove.mutateAsync({ id: pet.id });
                setSelected((s) => s.filter((id) => id !== pet.id));
                notifySuccess(`${pet.name} was deleted.`);
              }}
            />
          </>
        )}
      />
    </>
  );
}
