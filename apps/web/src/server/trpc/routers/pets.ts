/** Animals (staff): the dashboard table, one animal, create/edit/delete and bulk status changes. */
import {
  EntityId,
  NewPet,
  PetBulkStatus,
  PetBulkStatusMatching,
  PetSearch,
  PetStatusRestore,
  PetUpdate,
} from "@petstore/contracts";
import { z } from "zod";
import { router, staffProcedure } from "../init";

const ById = z.strictObject({ id: EntityId });

export const petsRouter = router({
  /** One page of animals with sort, status/category filters and a name search. */
  search: staffProcedure.input(PetSearch).query(({ ctx, input }) => ctx.rt.pets.search(input)),

  /** One animal. NOT_FOUND when missing. */
  get: staffProcedure.input(ById).query(({ ctx, input }) => ctx.rt.pets.get(BigInt(input.id))),

  /** Creates an animal (same rules and messages as POST /v1/pets). */
  create: staffProcedure.input(NewPet).mutation(({ ctx, input }) => ctx.rt.pets.create(input, ctx.actor)),

  /** Edits name, category and/or status. */
  update: staffProcedure.input(PetUpdate).mutation(({ ctx, input }) => ctx.rt.pets.update(input, ctx.actor)),

  /** Deletes an animal. */
  remove: staffProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await ctx.rt.pets.remove(input.id, ctx.actor);
    return { id: input.id };
  }),

  /**
   * Sets the status (or clears it with null) of several animals: `updated` (how many) and `previous` (each one's
   * status before, for `restoreStatus`).
   */
  setStatus: staffProcedure.input(PetBulkStatus).mutation(async ({ ctx, input }) => {
    const { count, previous } = await ctx.rt.pets.setStatus(input.ids, input.status, ctx.actor);
    return { updated: count, previous };
  }),

  /**
   * `setStatus` of every animal the table's filters match (at most MAX_BULK_STATUS; more is refused, nothing set),
   * answered as `setStatus`; its undo is `restoreStatus` too.
   */
  setStatusMatching: staffProcedure.input(PetBulkStatusMatching).mutation(async ({ ctx, input }) => {
    const { count, previous } = await ctx.rt.pets.setStatusMatching(input.filter, input.status, ctx.actor);
    return { updated: count, previous };
  }),

  /** Undoes a `setStatus`: puts back the statuses of the animals still at `from`; `restored` and `skipped`. */
  restoreStatus: staffProcedure
    .input(PetStatusRestore)
    .mutation(({ ctx, input }) => ctx.rt.pets.restoreStatus(input.previous, input.from, ctx.actor)),
});
