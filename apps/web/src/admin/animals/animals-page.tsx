"use client";
/**
 * Animals: a server-paged table (sort by id or name, filter by status and category, search by name),
 * create/edit in a dialog, delete after confirmation, and status changes for several selected animals.
 */
import {
  Badge,
  Button,
  Checkbox,
  Group,
  Pagination,
  Select,
  Table,
  Text,
  TextInput,
  UnstyledButton,
  VisuallyHidden,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import type { PetSearch } from "@petstore/contracts";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmAction } from "../components/confirm-action";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { TableScroll } from "../components/table-scroll";
import { notifyError, notifySuccess } from "../feedback";
import { formatDateTime, formatNumber, STATUS_COLORS, STATUS_LABELS } from "../format";
import { useTRPC } from "../trpc";
import { AnimalFormModal, type EditableAnimal } from "./animal-form-modal";
import { BulkStatusBar } from "./bulk-status-bar";

type SortBy = PetSearch["sortBy"];
type Direction = PetSearch["sortDirection"];

const STATUS_FILTER = [
  { value: "", label: "All statuses" },
  ...(["available", "pending", "sold", "none"] as const).map((value) => ({
    value,
    label: STATUS_LABELS[value],
  })),
];

function SortHeader({
  label,
  column,
  sortBy,
  direction,
  onSort,
}: {
  label: string;
  column: SortBy;
  sortBy: SortBy;
  direction: Direction;
  onSort(column: SortBy): void;
}) {
  const active = sortBy === column;
  return (
    <Table.Th aria-sort={active ? (direction === "asc" ? "ascending" : "descending") : "none"}>
      <UnstyledButton onClick={() => onSort(column)} fw={700} fz="sm" style={{ whiteSpace: "nowrap" }}>
        {label} {active ? (direction === "asc" ? "▲" : "▼") : "↕"}
        {active ? null : <VisuallyHidden>, sortable</VisuallyHidden>}
      </UnstyledButton>
    </Table.Th>
  );
}

export function AnimalsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [sortBy, setSortBy] = useState<SortBy>("id");
  const [direction, setDirection] = useState<Direction>("asc");
  const [status, setStatus] = useState("");
  const [categoryId, setCategoryId] = useState("");
  const [search, setSearch] = useState("");
  const [debouncedSearch] = useDebouncedValue(search.trim(), 300);
  const [selected, setSelected] = useState<number[]>([]);
  const [editing, setEditing] = useState<EditableAnimal | null>(null);
  const [formOpen, setFormOpen] = useState(false);

  const input: PetSearch = {
    page,
    pageSize,
    sortBy,
    sortDirection: direction,
    ...(status ? { status: status as PetSearch["status"] } : {}),
    ...(categoryId ? { categoryId: Number(categoryId) } : {}),
    ...(debouncedSearch ? { query: debouncedSearch } : {}),
  };
  const pets = useQuery({ ...trpc.pets.search.queryOptions(input), placeholderData: keepPreviousData });
  const categories = useQuery(trpc.categories.list.queryOptions());
  const remove = useMutation(trpc.pets.remove.mutationOptions());

  const changeFilter = (apply: () => void) => {
    apply();
    setPage(1);
    setSelected([]);
  };
  const onSort = (column: SortBy) =>
    changeFilter(() => {
      if (sortBy === column) setDirection(direction === "asc" ? "desc" : "asc");
      else {
        setSortBy(column);
        setDirection("asc");
      }
    });
  const openForm = (animal: EditableAnimal | null) => {
    setEditing(animal);
    setFormOpen(true);
  };
  const deleteAnimal = async (animal: { id: number; name: string }) => {
    try {
      await remove.mutateAsync({ id: animal.id });
    } catch (error) {
      notifyError(`Could not delete ${animal.name}`, error);
      throw error;
    }
    setSelected((s) => s.filter((id) => id !== animal.id));
    await queryClient.invalidateQueries({ queryKey: trpc.pets.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.categories.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.overview.pathKey() });
    notifySuccess(`${animal.name} was deleted.`);
  };

  const categoryOptions = [
    { value: "", label: "All categories" },
    ...(categories.data ?? []).map((c) => ({ value: String(c.id), label: c.name })),
  ];
  const filtered = Boolean(status || categoryId || debouncedSearch);

  return (
    <>
      <PageHeader
        title="Animals"
        description="Every animal in the store. Changes show in the public API at once."
        actions={
          <Button onClick={() => openForm(null)} disabled={!categories.data?.length}>
            New animal
          </Button>
        }
      />
      <Group gap="sm" mb="md" align="flex-end" wrap="wrap">
        <TextInput
          label="Search by name"
          placeholder="e.g. Rex"
          value={search}
          onChange={(e) => changeFilter(() => setSearch(e.currentTarget.value))}
          w={{ base: "100%", xs: 220 }}
          type="search"
        />
        <Select
          label="Status"
          data={STATUS_FILTER}
          value={status}
          onChange={(v) => changeFilter(() => setStatus(v ?? ""))}
          allowDeselect={false}
          w={{ base: "47%", xs: 170 }}
        />
        <Select
          label="Category"
          data={categoryOptions}
          value={categoryId}
          onChange={(v) => changeFilter(() => setCategoryId(v ?? ""))}
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
          title: filtered ? "No animals match" : "No animals yet",
          description: filtered
            ? "Try another name, status or category."
            : "Add the first animal to the store.",
          action: filtered ? undefined : <Button onClick={() => openForm(null)}>New animal</Button>,
        }}
      >
        {(data) => {
          const pageIds = data.rows.map((r) => r.id);
          const allSelected = pageIds.length > 0 && pageIds.every((id) => selected.includes(id));
          const someSelected = pageIds.some((id) => selected.includes(id));
          const pages = Math.max(1, Math.ceil(data.total / pageSize));
          const first = (page - 1) * pageSize + 1;
          return (
            <>
              <TableScroll label="Animals table" minWidth={760}>
                <Table striped highlightOnHover verticalSpacing="xs" aria-busy={pets.isFetching}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th w={40}>
                        <Checkbox
                          aria-label="Select all animals on this page"
                          checked={allSelected}
                          indeterminate={someSelected && !allSelected}
                          onChange={() => setSelected(allSelected ? [] : pageIds)}
                        />
                      </Table.Th>
                      <SortHeader
                        label="ID"
                        column="id"
                        sortBy={sortBy}
                        direction={direction}
                        onSort={onSort}
                      />
                      <SortHeader
                        label="Name"
                        column="name"
                        sortBy={sortBy}
                        direction={direction}
                        onSort={onSort}
                      />
                      <Table.Th>Category</Table.Th>
                      <Table.Th>Status</Table.Th>
                      <Table.Th>Updated</Table.Th>
                      <Table.Th>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {data.rows.map((pet) => {
                      const key = pet.status ?? "none";
                      return (
                        <Table.Tr
                          key={pet.id}
                          bg={selected.includes(pet.id) ? "var(--mantine-color-teal-light)" : undefined}
                        >
                          <Table.Td>
                            <Checkbox
                              aria-label={`Select ${pet.name}`}
                              checked={selected.includes(pet.id)}
                              onChange={(e) => {
                                const checked = e.currentTarget.checked;
                                setSelected((s) =>
                                  checked ? [...s, pet.id] : s.filter((id) => id !== pet.id),
                                );
                              }}
                            />
                          </Table.Td>
                          <Table.Td>{pet.id}</Table.Td>
                          <Table.Td fw={500}>{pet.name}</Table.Td>
                          <Table.Td>{pet.categoryName}</Table.Td>
                          <Table.Td>
                            <Badge variant="light" color={STATUS_COLORS[key]}>
                              {STATUS_LABELS[key]}
                            </Badge>
                          </Table.Td>
                          <Table.Td>{formatDateTime(pet.updatedAt)}</Table.Td>
                          <Table.Td>
                            <Group gap={6} justify="flex-end" wrap="nowrap">
                              <Button
                                size="xs"
                                variant="default"
                                aria-label={`Edit ${pet.name}`}
                                onClick={() => openForm(pet)}
                              >
                                Edit
                              </Button>
                              <ConfirmAction
                                label="Delete"
                                ariaLabel={`Delete ${pet.name}`}
                                title={`Delete ${pet.name}?`}
                                message={`${pet.name} (#${pet.id}) will be removed from the store and the public API. This cannot be undone.`}
                                confirmLabel="Delete animal"
                                onConfirm={() => deleteAnimal(pet)}
                              />
                            </Group>
                          </Table.Td>
                        </Table.Tr>
                      );
                    })}
                  </Table.Tbody>
                </Table>
              </TableScroll>
              <Group justify="space-between" mt="md" gap="sm">
                <Text size="sm" c="dimmed" aria-live="polite">
                  {formatNumber(first)}–{formatNumber(first + data.rows.length - 1)} of{" "}
                  {formatNumber(data.total)}
                </Text>
                <Group gap="sm">
                  <Select
                    aria-label="Animals per page"
                    data={["10", "20", "50", "100"]}
                    value={String(pageSize)}
                    onChange={(v) => changeFilter(() => setPageSize(Number(v ?? 20)))}
                    allowDeselect={false}
                    w={80}
                    size="xs"
                  />
                  <Pagination
                    total={pages}
                    value={page}
                    onChange={(p) => {
                      setPage(p);
                      setSelected([]);
                    }}
                    size="sm"
                    siblings={0}
                    getControlProps={(control) => ({ "aria-label": `${control} page` })}
                    getItemProps={(p) => ({ "aria-label": `Page ${p}` })}
                  />
                </Group>
              </Group>
            </>
          );
        }}
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
