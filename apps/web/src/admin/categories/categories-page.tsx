"use client";
/**
 * Categories: their ids (copyable: API clients send `categoryId`) and animal counts; create, rename, and delete
 * one no animal uses (after asking). Names are unique regardless of letter case.
 */
import { Button, Code, CopyButton, Group, Paper, Text, TextInput, Tooltip } from "@mantine/core";
import { CategoryName, COUNT_CAP } from "@petstore/contracts";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { z } from "zod";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "@/ui/components/data-table";
import { Hint, PageHeader } from "@/ui/components/page";
import { ConfirmAction, FormModal } from "@/ui/dialogs";
import { notifySuccess, useNotifiedMutation } from "@/ui/feedback";
import { formatCappedCount, formatNumber } from "@/ui/format";
import { useZodForm } from "@/ui/forms/use-zod-form";
import { useTRPC } from "@/ui/trpc";

const NameForm = z.object({ name: CategoryName });

type Category = RouterOutputs["categories"]["list"][number];

/** The id in monospace with a button that copies it. */
function CopyableId({ id, name }: Pick<Category, "id" | "name">) {
  return (
    <Group gap={6} wrap="nowrap" justify="inherit">
      <Code>{id}</Code>
      <CopyButton value={String(id)}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="subtle" onClick={copy} aria-label={`Copy the id of ${name}`}>
            {copied ? "Copied" : "Copy"}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

function CreateCategoryForm() {
  const trpc = useTRPC();
  const form = useZodForm(NameForm, { name: "" }, (v) => v);
  const create = useNotifiedMutation(trpc.categories.create.mutationOptions(), {
    invalidate: [trpc.categories.pathKey()],
    success: (category) => `Category "${category.name}" was created (id ${category.id}).`,
    failure: "Could not create the category",
    form,
    onDone: () => form.reset(),
  });
  return (
    <Paper
      withBorder
      p="md"
      mb="lg"
      component="form"
      onSubmit={form.onSubmit((input) => create.mutate(input))}
      noValidate
      aria-label="Create a category"
    >
      <Group align="flex-start" gap="sm">
        <TextInput
          label="New category"
          placeholder="e.g. hamsters"
          {...form.field("name")}
          style={{ flex: 1, minWidth: 200 }}
        />
        <Button type="submit" loading={create.isPending} mt={{ base: 0, xs: 25 }}>
          Create category
        </Button>
      </Group>
    </Paper>
  );
}

function RenameDialog({ category, onClose }: { category: Category; onClose(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(NameForm, { name: category.name }, (v) => v);
  const rename = useNotifiedMutation(trpc.categories.rename.mutationOptions(), {
    invalidate: [trpc.categories.pathKey(), trpc.pets.pathKey()],
    success: (renamed) => `"${category.name}" is now "${renamed.name}".`,
    failure: "Could not rename the category",
    form,
    onDone: onClose,
  });
  return (
    <FormModal
      title={`Rename "${category.name}"`}
      onClose={onClose}
      form={form}
      mutation={{
        mutate: (input) => rename.mutate({ id: category.id, name: input.name }),
        isPending: rename.isPending,
      }}
      submitLabel="Rename"
    >
      <TextInput label="Name" required {...form.field("name")} data-autofocus />
    </FormModal>
  );
}

export function CategoriesPage() {
  const trpc = useTRPC();
  const categories = useQuery(trpc.categories.list.queryOptions());
  const remove = useNotifiedMutation(trpc.categories.remove.mutationOptions(), {
    invalidate: [trpc.categories.pathKey()],
    failure: "Could not delete the category",
  });
  const [renaming, setRenaming] = useState<Category | null>(null);

  const deleteCategory = async (category: Category) => {
    await remove.mutateAsync({ id: category.id });
    notifySuccess(`Category "${category.name}" was deleted.`);
  };

  return (
    <>
      <PageHeader
        title="Categories"
        description="Every animal belongs to one category; API clients send its id as categoryId. A category can be deleted once no animal uses it."
      />
      <CreateCategoryForm />
      <QueryTable
        query={categories}
        errorTitle="Could not load the categories"
        empty={{ title: "No categories yet", description: "Create the first one above." }}
        label="Categories table"
        rowKey={(c) => c.id}
        minWidth={560}
        columns={[
          { key: "name", header: "Name", cell: (c) => <Text fw={500}>{c.name}</Text>, title: true },
          { key: "id", header: "ID", cell: (c) => <CopyableId id={c.id} name={c.name} /> },
          {
            key: "animals",
            header: "Animals",
            align: "right",
            cell: (c) => formatCappedCount(c.petCount, c.petCountExact),
          },
        ]}
        actions={(c) => (
          <>
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
                label={`Used by ${formatCappedCount(c.petCount, c.petCountExact)} animal${c.petCount === 1 && c.petCountExact ? "" : "s"}: move or delete them first`}
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
          </>
        )}
      />
      <Hint size="xs" mt="sm">
        Renaming a category does not change its id, so API clients keep working. Names are unique regardless
        of letter case.
        {categories.data?.some((c) => !c.petCountExact)
          ? ` Animals are counted up to ${formatNumber(COUNT_CAP)}; "${formatCappedCount(COUNT_CAP, false)}" means more.`
          : null}
      </Hint>
      {renaming ? <RenameDialog category={renaming} onClose={() => setRenaming(null)} /> : null}
    </>
  );
}
