/**
 * Animal, NewPet, PetStatus and the listPets query (docs/interface.md "Resources" and
 * docs/contract.md section 1). Shared by the REST routes, the tRPC routers and the OpenAPI document.
 */

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./defaults.ts";
import { humanText } from "./text.ts";
import { typeMessage, z } from "./zod.ts";

// Every rule of a request schema carries its own message in plain words (docs/contract.md section 1, "Error
// body"); apps/web/test/rest/validation-messages.test.ts breaks each one over HTTP.

export const PetStatus = z
  .enum(["available", "pending", "sold"], { error: typeMessage("must be one of available, pending, sold") })
  .meta({
    id: "PetStatus",
    description: "Availability of an animal.",
  });
export type PetStatus = z.infer<typeof PetStatus>;

export const MAX_PET_ID = 9223372036854775807n;

/** Longest animal name, in UTF-16 code units after normalisation and trimming. */
export const MAX_PET_NAME_LENGTH = 100;

/**
 * An id in a JSON body: ids are JSON numbers, exact up to 2^53-1 (`Number.MAX_SAFE_INTEGER`), which the
 * document states as their maximum.
 */
const bodyId = () => z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** The answer's shape (documentation and types only: responses are built by core, never parsed). */
export const Animal = z
  .object({
    id: bodyId().meta({ format: "int64", description: "Unique identifier, assigned by the service." }),
    name: z
      .string()
      .min(1)
      .max(MAX_PET_NAME_LENGTH)
      .meta({ description: "The animal's name (NFC-normalised, trimmed, at least one visible character)." }),
    categoryId: bodyId().meta({ format: "int64", description: "Category the animal belongs to." }),
    status: PetStatus.optional(),
  })
  .meta({ id: "Animal" });
export type Animal = z.infer<typeof Animal>;

/** An animal's name: the shared text rule (text.ts), 1 to 100 characters. */
export const PetName = humanText({ max: MAX_PET_NAME_LENGTH });

export const CategoryId = z
  .int({
    // zod's integer type also refuses integers past 2^53-1 (as too_big): say so as `max` does.
    error: (issue) =>
      issue.input === undefined
        ? "is required"
        : issue.code === "too_big"
          ? "is too large"
          : "must be an integer",
  })
  .min(1, { error: "must be at least 1" })
  .max(Number.MAX_SAFE_INTEGER, { error: "is too large" });

export const NewPet = z
  .strictObject({
    name: PetName.meta({
      description:
        "The animal's name, 1 to 100 characters after trimming, stored NFC-normalised; at least one visible " +
        "character, no control or bidirectional control characters.",
    }),
    categoryId: CategoryId.meta({ format: "int64", description: "An existing category's id." }),
    status: PetStatus.optional(),
  })
  .meta({ id: "NewPet" });
export type NewPet = z.infer<typeof NewPet>;

/** Decimal integer 1..100 written as a query string value, without leading zeros. */
export const PageLimit = z
  .string({ error: typeMessage("must be given once") })
  .regex(/^[1-9][0-9]*$/, { error: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` })
  .transform(Number)
  .pipe(
    z
      .int()
      .min(1, { error: "must be at least 1" })
      .max(MAX_PAGE_SIZE, { error: `must be at most ${MAX_PAGE_SIZE}` }),
  );

/**
 * The opaque `cursor` query value of a keyset-paged list (docs/contract.md section 1, "GET /v1/pets"): 1 to 200
 * characters, given once; what it encodes is checked by core when it is decoded.
 */
export const PageCursor = z
  .string({ error: typeMessage("must be given once") })
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });

export const ListPetsQuery = z.object({
  limit: PageLimit.optional().meta({
    param: { name: "limit", in: "query" },
    // Documented as the interface types it (a decimal integer on the wire), not as the string zod parses.
    type: "integer",
    minimum: 1,
    maximum: 100,
    default: DEFAULT_PAGE_SIZE,
    description: "Maximum number of animals returned: decimal without leading zeros, 1 to 100.",
    example: DEFAULT_PAGE_SIZE,
  }),
  status: PetStatus.optional().meta({ param: { name: "status", in: "query" } }),
  cursor: PageCursor.optional().meta({
    param: { name: "cursor", in: "query" },
    description: 'Opaque cursor from the previous page\'s `Link: rel="next"` header.',
  }),
});
export type ListPetsQuery = z.infer<typeof ListPetsQuery>;

/** Path id: decimal integer 1..2^63-1 without leading zeros, returned as a bigint. */
export const PetIdParam = z
  .string({ error: typeMessage("must be a whole number from 1 to 9223372036854775807") })
  .regex(/^[1-9][0-9]{0,18}$/, { error: "must be a whole number from 1 to 9223372036854775807" })
  .transform((v) => BigInt(v))
  .refine((v) => v >= 1n && v <= MAX_PET_ID, {
    error: "must be a whole number from 1 to 9223372036854775807",
  });
