"use client";
/**
 * Create/edit form for an animal in a Mantine Modal. Validated with the contract schemas (NewPet for
 * create, PetUpdate for edit), so messages match the REST API; server field errors show on the fields.
 */
import { Button, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { NewPet, PetName, PetUpdate } from "@petstore/contracts";
import type { FormEvent } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { STATUS_LABELS } from "../format";
import { useTRPC } from "../trpc";
import { useNotifiedMutation } from "../use-notified-mutation";
import { maxLengthOf, useZodForm } from "../use-zod-form";

export type EditableAnimal = Pick<RouterOutputs["pets"]["get"], "id" | "name" | "categoryId" | "status">;

type Values = { name: string; categoryId: string | null; status: string };

const STATUS_OPTIONS = (["none", "available", "pending", "sold"] as const).map((value) => ({
  value,
  label: STATUS_LABELS[value],
}));

function valuesOf(animal: EditableAnimal | null): Values {
  return animal
    ? { name: animal.name, categoryId: String(animal.categoryId), status: animal.status ?? "none" }
    : { name: "", categoryId: null, status: "available" };
}

export interface AnimalFormModalProps {
  opened: boolean;
  onClose(): void;
  /** The animal being edited, or null to create one. */
  animal: EditableAnimal | null;
  categories: Pick<RouterOutputs["categories"]["list"][number], "id" | "name">[];
}

export function AnimalFormModal({ opened, onClose, animal, categories }: AnimalFormModalProps) {
  return (
    <Modal opened={opened} onClose={onClose} title={animal ? `Edit ${animal.name}` : "New animal"} centered>
      {/* Keyed so the form starts from the right values each time it opens. */}
      {opened ? (
        <AnimalForm key={animal?.id ?? "new"} animal={animal} categories={categories} onDone={onClose} />
      ) : null}
    </Modal>
  );
}

function AnimalForm({
  animal,
  categories,
  onDone,
}: {
  animal: EditableAnimal | null;
  categories: AnimalFormModalProps["categories"];
  onDone(): void;
}) {
  const trpc = useTRPC();
  const toStatus = (s: string) => (s === "none" ? undefined : (s as "available" | "pending" | "sold"));
  const form = useZodForm(animal ? PetUpdate : NewPet, valuesOf(animal), (v) =>
    animal
      ? {
          id: animal.id,
          name: v.name,
          categoryId: v.categoryId ? Number(v.categoryId) : undefined,
          status: toStatus(v.status) ?? null,
        }
      : {
          name: v.name,
          categoryId: v.categoryId ? Number(v.categoryId) : undefined,
          status: toStatus(v.status),
        },
  );
  const feedback = {
    invalidate: [trpc.pets.pathKey(), trpc.categories.pathKey(), trpc.overview.pathKey()],
    success: (saved: { name: string }) => (animal ? `${saved.name} was saved.` : `${saved.name} was added.`),
    failure: animal ? "Could not save the animal" : "Could not add the animal",
    form,
    onDone,
  };
  const create = useNotifiedMutation(trpc.pets.create.mutationOptions(), feedback);
  const update = useNotifiedMutation(trpc.pets.update.mutationOptions(), feedback);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.values.categoryId) {
      form.validate();
      return;
    }
    const input = form.validate();
    if (!input) return;
    if (animal) update.mutate(input as PetUpdate);
    else create.mutate(input as NewPet);
  };
  const categoryError =
    form.errors.categoryId && !form.values.categoryId ? "Choose a category." : form.errors.categoryId;

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          required
          maxLength={maxLengthOf(PetName)}
          value={form.values.name}
          onChange={(e) => form.setValue("name", e.currentTarget.value)}
          error={form.errors.name}
          data-autofocus
        />
        <Select
          label="Category"
          required
          placeholder="Choose a category"
          data={categories.map((c) => ({ value: String(c.id), label: c.name }))}
          value={form.values.categoryId}
          onChange={(v) => form.setValue("categoryId", v)}
          error={categoryError}
          searchable
          nothingFoundMessage="No such category"
        />
        <Select
          label="Status"
          data={STATUS_OPTIONS}
          value={form.values.status}
          onChange={(v) => form.setValue("status", v ?? "none")}
          error={form.errors.status}
          allowDeselect={false}
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {animal ? "Save changes" : "Add animal"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
