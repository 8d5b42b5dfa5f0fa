/** Maps Pet rows to the public Animal shape (ids as JSON numbers, `status` omitted when unset). */
import type { Animal } from "@petstore/contracts";
import type { Pet } from "@petstore/db";

export function toAnimal(pet: Pick<Pet, "id" | "name" | "categoryId" | "status">): Animal {
  const animal: Animal = { id: Number(pet.id), name: pet.name, categoryId: Number(pet.categoryId) };
  if (pet.status) animal.status = pet.status;
  return animal;
}
