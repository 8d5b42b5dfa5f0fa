"use client";
/**
 * One page of animals: select for bulk changes, sort, a status changed in its row (an animal a placed order holds
 * keeps its status: the server says which order), edit, delete after confirming. The checkboxes read the
 * selection from a context and the sort and "select all" headers are passed apart from the columns, so a checkbox
 * re-renders the checkboxes, not the rows (a selected row's tint is CSS, admin.css; docs/performance.md).
 */
import { Button, Checkbox, Menu } from "@mantine/core";
import type { PetStatus } from "@petstore/contracts";
import { createContext, useContext } from "react";
import { PhoneSort, sortHeaders } from "@/admin/components/sort";
import type { RouterOutputs } from "@/server/trpc/router";
import { type Column, DataTable } from "@/ui/components/data-table";
import { ConfirmAction } from "@/ui/dialogs";
import { notifySuccess, useNotifiedMutation } from "@/ui/feedback";
import { formatDateTime, STATUS_LABELS } from "@/ui/format";
import { useTRPC } from "@/ui/trpc";
import type { EditableAnimal } from "./animal-dialog";
import type { useAnimalQuery } from "./use-animal-query";

type Animal = RouterOutputs["pets"]["search"]["rows"][number];

const PHONE_SORTS: { value: `${"id" | "name"}-${"asc" | "desc"}`; label: string }[] = [
  { value: "id-asc", label: "ID, oldest first" },
  { value: "id-desc", label: "ID, newest first" },
  { value: "name-asc", label: "Name, A to Z" },
  { value: "name-desc", label: "Name, Z to A" },
];

interface SelectionState {
  selected: number[];
  setSelected(update: (ids: number[]) => number[]): void;
}

const Selection = createContext<SelectionState>({ selected: [], setSelected: () => {} });

/** Sets one animal's status (null clears it); rows read it from a context, so the columns stay constant. */
const StatusChange = createContext<{ change(pet: Animal, status: PetStatus | null): void; pending?: number }>(
  {
    change: () => {},
  },
);

const STATUS_OPTIONS = (["available", "pending", "sold", "none"] as const).map((value) => ({
  value,
  label: STATUS_LABELS[value],
}));

/**
 * An animal's status in its row: a button naming it that opens a menu of the others; choosing one sets it at once.
 * The menu's items exist only while it is open, so a page of rows holds one button each.
 */
function StatusMenu({ pet }: { pet: Animal }) {
  const { change, pending } = useContext(StatusChange);
  const current = pet.status ?? "none";
  return (
    <Menu position="bottom-start">
      <Menu.Target>
        <Button
          size="compact-sm"
          variant="default"
          rightSection="▾"
          loading={pending === pet.id}
          aria-label={`Status of ${pet.name}: ${STATUS_LABELS[current]}`}
        >
          {STATUS_LABELS[current]}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {STATUS_OPTIONS.filter((o) => o.value !== current).map((o) => (
          <Menu.Item key={o.value} onClick={() => change(pet, o.value === "none" ? null : o.value)}>
            {o.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** An animal's selection checkbox (a table cell, or the lead of a phone card). */
function SelectBox({ pet }: { pet: Pick<Animal, "id" | "name"> }) {
  const { selected, setSelected } = useContext(Selection);
  return (
    <input
      type="checkbox"
      className="row-select"
      aria-label={`Select ${pet.name}`}
      data-row-select
      checked={selected.includes(pet.id)}
      onChange={(e) => {
        const checked = e.currentTarget.checked;
        setSelected((s) => (checked ? [...s, pet.id] : s.filter((id) => id !== pet.id)));
      }}
    />
  );
}

/** Selects every animal of the page, or none when all are; `labelled`: a visible label (phones). */
function SelectAllBox({ pageIds, labelled }: { pageIds: number[]; labelled?: boolean }) {
  const { selected, setSelected } = useContext(Selection);
  const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.includes(id));
  const someSelected = pageIds.some((id) => selected.includes(id));
  return (
    <Checkbox
      {...(labelled
        ? { label: "Select all on this page" }
        : { "aria-label": "Select all animals on this page" })}
      checked={allSelected}
      indeterminate={someSelected && !allSelected}
      onChange={() => setSelected(() => (allSelected ? [] : pageIds))}
    />
  );
}

const selectCell = (pet: Animal) => <SelectBox pet={pet} />;

const COLUMNS: Column<Animal>[] = [
  { key: "select", header: null, headerProps: { w: 40 }, cell: selectCell, desktopOnly: true },
  { key: "id", header: "ID", cell: (p) => p.id },
  { key: "name", header: "Name", cell: (p) => p.name, title: true },
  { key: "category", header: "Category", cell: (p) => p.categoryName },
  {
    key: "status",
    header: "Status",
    cell: (p) => <StatusMenu pet={p} />,
  },
  { key: "updated", header: "Updated", cell: (p) => formatDateTime(p.updatedAt) },
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
  // `mutateAsync` is one function throughout (the mutation's result is not), so the rows stay as they are.
  const { mutateAsync: removeAnimal } = useNotifiedMutation(trpc.pets.remove.mutationOptions(), {
    invalidate: [trpc.pets.pathKey(), trpc.categories.pathKey(), trpc.overview.pathKey()],
    failure: "Could not delete the animal",
  });
  const setStatus = useNotifiedMutation(trpc.pets.update.mutationOptions(), {
    invalidate: [trpc.pets.pathKey(), trpc.overview.pathKey()],
    success: (pet) => `${pet.name} is now ${STATUS_LABELS[pet.status ?? "none"]}.`,
    failure: "Could not change the status",
  });
  const statusChange = {
    change: (pet: Animal, status: PetStatus | null) => setStatus.mutate({ id: pet.id, status }),
    pending: setStatus.isPending ? setStatus.variables?.id : undefined,
  };
  const pageIds = rows.map((r) => r.id);
  const headers = {
    select: { header: <SelectAllBox pageIds={pageIds} />, headerProps: { w: 40 } },
    ...sortHeaders({ id: "ID", name: "Name" }, query.view, query.sortBy),
  };
  return (
    <StatusChange.Provider value={statusChange}>
      <Selection.Provider value={{ selected, setSelected }}>
        <PhoneSort
          options={PHONE_SORTS}
          view={query.view}
          onChange={(sort, dir) => query.filter({ sort, dir })}
        >
          <SelectAllBox pageIds={pageIds} labelled />
        </PhoneSort>
        <DataTable
          label="Animals table"
          rows={rows}
          rowKey={(p) => p.id}
          columns={COLUMNS}
          headers={headers}
          minWidth={760}
          busy={busy}
          cardLead={selectCell}
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
                  await removeAnimal({ id: pet.id });
                  setSelected((s) => s.filter((id) => id !== pet.id));
                  notifySuccess(`${pet.name} was deleted.`);
                }}
              />
            </>
          )}
        />
      </Selection.Provider>
    </StatusChange.Provider>
  );
}
