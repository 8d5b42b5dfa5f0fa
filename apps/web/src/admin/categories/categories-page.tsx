"use client";
/** Categories: list with animal counts, create, rename (dialog), delete when no animal uses it (after asking). */
import {
  Button,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from "@mantine/core";
import { CategoryName } from "@petstore/contracts";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { z } from "zod";
import { ConfirmAction } from "../components/confirm-action";
import { PageHeader } from "../components/page-header";
import { QueryState } from "../components/query-state";
import { TableScroll } from "../components/table-scroll";
import { notifyError, notifySuccess } from "../feedback";
import { formatNumber } from "../format";
import { useTRPC } from "../trpc";
import { useZodForm } from "../use-zod-form";

const NameForm = z.object({ name: CategoryName });

type Category = { id: number; name: string; petCount: number };

function useInvalidateCategories() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.categories.pathKey() });
}

function CreateCategoryForm() {
  const trpc = useTRPC();
  const invalidate = useInvalidateCategories();
  const form = useZodForm(NameForm, { name: "" }, (v) => v);
  const create = useMutation(
    trpc.categories.create.mutationOptions({
      onSuccess: async (category) => {
        await invalidate();
        form.reset();
        notifySuccess(`Category "${category.name}" was created.`);
      },
      onError: (error) => {
        if (!form.setServerErrors(error)) notifyError("Could not create the category", error);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (input) create.mutate(input);
  };
  return (
    <Paper
      withBorder
      p="md"
      mb="lg"
      component="form"
      onSubmit={submit}
      noValidate
      aria-label="Create a category"
    >
      <Group align="flex-start" gap="sm">
        <TextInput
          label="New category"
          placeholder="e.g. hamsters"
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          maxLength={80}
          style={{ flex: 1, minWidth: 200 }}
        />
        <Button type="submit" loading={create.isPending} mt={{ base: 0, xs: 25 }}>
          Create category
        </Button>
      </Group>
    </Paper>
  );
}

function RenameDialog({ category, onClose }: { category: Category | null; onClose(): void }) {
  return (
    <Modal
      opened={category !== null}
      onClose={onClose}
      title={category ? `Rename "${category.name}"` : ""}
      centered
    >
      {category ? <RenameForm key={category.id} category={category} onDone={onClose} /> : null}
    </Modal>
  );
}

function RenameForm({ category, onDone }: { category: Category; onDone(): void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCategories();
  const queryClient = useQueryClient();
  const form = useZodForm(NameForm, { name: category.name }, (v) => v);
  const rename = useMutation(
    trpc.categories.rename.mutationOptions({
      onSuccess: async (renamed) => {
        await invalidate();
        await queryClient.invalidateQueries({ queryKey: trpc.pets.pathKey() });
        notifySuccess(`"${category.name}" is now "${renamed.name}".`);
        onDone();
      },
      onError: (error) => {
        if (!form.setServerErrors(error)) notifyError("Could not rename the category", error);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (input) rename.mutate({ id: category.id, name: input.name });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          required
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          data-autofocus
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={rename.isPending}>
            Rename
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function CategoriesPage() {
  const trpc = useTRPC();
  const invalidate = useInvalidateCategories();
  const categories = useQuery(trpc.categories.list.queryOptions());
  const remove = useMutation(trpc.categories.remove.mutationOptions());
  const [renaming, setRenaming] = useState<Category | null>(null);

  const deleteCategory = async (category: Category) => {
    try {
      await remove.mutateAsync({ id: category.id });
    } catch (error) {
      notifyError(`Could not delete "${category.name}"`, error);
      throw error;
    }
    await invalidate();
    notifySuccess(`Category "${category.name}" was deleted.`);
  };

  return (
    <>
      <PageHeader
        title="Categories"
        description="Every animal belongs to one category. A category can be deleted once no animal uses it."
      />
      <CreateCategoryForm />
      <QueryState
        query={categories}
        errorTitle="Could not load the categories"
        isEmpty={(d) => d.length === 0}
        empty={{ title: "No categories yet", description: "Create the first one above." }}
      >
        {(data) => (
          <TableScroll label="Categories table" minWidth={480}>
            <Table striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th ta="right">Animals</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td fw={500}>{c.name}</Table.Td>
                    <Table.Td ta="right">{formatNumber(c.petCount)}</Table.Td>
                    <Table.Td>
                      <Group gap={6} justify="flex-end" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="default"
                          aria-label={`Rename ${c.name}`}
                          onClick={() => setRenaming(c)}
                        >
                          Rename
                        </Button>
                        {c.petCount > 0 ? (
                          <Tooltip
                            label={`Used by ${c.petCount} animal${c.petCount === 1 ? "" : "s"}: move or delete them first`}
                          >
                            <Button
                              size="xs"
                              color="red"
                              variant="light"
                              data-disabled
                              aria-disabled="true"
                              aria-label={`Delete ${c.name} (in use)`}
                              onClick={(e) => e.preventDefault()}
                            >
                              Delete
                            </Button>
                          </Tooltip>
                        ) : (
                          <ConfirmAction
                            label="Delete"
                            ariaLabel={`Delete ${c.name}`}
                            title={`Delete "${c.name}"?`}
                            message="No animal uses this category. Deleting it cannot be undone."
                            confirmLabel="Delete category"
                            onConfirm={() => deleteCategory(c)}
                          />
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
        )}
      </QueryState>
      <Text size="xs" c="dimmed" mt="sm">
        Renaming a category does not change its id, so API clients keep working.
      </Text>
      <RenameDialog category={renaming} onClose={() => setRenaming(null)} />
    </>
  );
}
