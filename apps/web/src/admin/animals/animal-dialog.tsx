"use client";
/**
 * Adds an animal or edits `animal`, validated with the contract schemas (NewPet, PetUpdate), so the messages are
 * the REST API's; the server's field errors show on the fields. An animal's dialog also lists its orders.
 */
import { Select, TextInput } from "@mantine/core";
import { NewPet, PetUpdate } from "@petstore/contracts";
import type { RouterOutputs } from "@/server/trpc/router";
import { FormModal } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { STATUS_LABELS } from "@/ui/format";
import { useZodForm } from "@/ui/forms/use-zod-form";
import { useTRPC } from "@/ui/trpc";
import { AnimalOrders } from "./animal-orders";

export type EditableAnimal = Pick<RouterOutputs["pets"]["get"], "id" | "name" | "categoryId" | "status">;

const STATUS_OPTIONS = (["none", "available", "pending", "sold"] as const).map((value) => ({
  value,
  label: STATUS_LABELS[value],
}));

const toStatus = (s: string) => (s === "none" ? undefined : (s as "available" | "pending" | "sold"));

export function AnimalDialog({
  animal,
  categories,
  onClose,
}: {
  /** The animal to edit, or null for a new one. */
  animal: EditableAnimal | null;
  categories: Pick<RouterOutputs["categories"]["list"][number], "id" | "name">[];
  onClose(): void;
}) {
  const trpc = useTRPC();
  const form = useZodForm(
    animal ? PetUpdate : NewPet,
    animal
      ? {
          name: animal.name,
          categoryId: String(animal.categoryId) as string | null,
          status: animal.status ?? "none",
        }
      : { name: "", categoryId: null as string | null, status: "available" },
    (v) => ({
      ...(animal ? { id: animal.id } : {}),
      name: v.name,
      categoryId: v.categoryId ? Number(v.categoryId) : null,
      status: animal ? (toStatus(v.status) ?? null) : toStatus(v.status),
    }),
  );
  const feedback = {
    invalidate: [trpc.pets.pathKey(), trpc.categories.pathKey(), trpc.overview.pathKey()],
    success: (saved: { name: string }) => (animal ? `${saved.name} was saved.` : `${saved.name} was added.`),
    failure: animal ? "Could not save the animal" : "Could not add the animal",
    form,
    onDone: onClose,
  };
  const create = useNotifiedMutation(trpc.pets.create.mutationOptions(), feedback);
  const update = useNotifiedMutation(trpc.pets.update.mutationOptions(), feedback);
  const category = form.field("categoryId");
  return (
    <FormModal
      title={animal ? `Edit ${animal.name}` : "New animal"}
      onClose={onClose}
      form={form}
      mutation={{
        mutate: (input) => (animal ? update.mutate(input as PetUpdate) : create.mutate(input as NewPet)),
        isPending: create.isPending || update.isPending,
      }}
      submitLabel={animal ? "Save changes" : "Add animal"}
    >
      <TextInput label="Name" required {...form.field("name")} data-autofocus />
      <Select
        label="Category"
        required
        placeholder="Choose a category"
        data={categories.map((c) => ({ value: String(c.id), label: c.name }))}
        {...category}
        error={category.error && !category.value ? "Choose a category." : category.error}
        searchable
        nothingFoundMessage="No such category"
      />
      <Select label="Status" data={STATUS_OPTIONS} allowDeselect={false} {...form.field("status")} />
      {animal ? <AnimalOrders petId={animal.id} /> : null}
    </FormModal>
  );
}
