/**
 * The public API's category record and the listCategories query (docs/contract.md section 1, "GET /v1/categories
 * (listCategories)"): a category is `{ id, name }`, listed in ascending id order and paged exactly as listPets.
 * Shared by the REST route, the OpenAPI document and the typed client's generated types.
 */

import { DEFAULT_PAGE_SIZE } from "./defaults.ts";
import { PageCursor, PageLimit } from "./pets.ts";
import { z } from "./zod.ts";

/** Longest category name, in UTF-16 code units after normalisation and trimming (the dashboard's rule). */
export const MAX_CATEGORY_NAME_LENGTH = 60;

/** The answer's shape (documentation and types only: responses are built by core, never parsed). */
export const Category = z
  .object({
    id: z
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ format: "int64", description: "Unique identifier: the `categoryId` of an animal in it." }),
    name: z
      .string()
      .min(1)
      .max(MAX_CATEGORY_NAME_LENGTH)
      .meta({ description: "The category's name, unique regardless of letter case." }),
  })
  .meta({ id: "Category" });
export type Category = z.infer<typeof Category>;

/** `limit` and `cursor` with listPets' rules; there is no filter. Unknown parameters are ignored. */
export const ListCategoriesQuery = z.object({
  limit: PageLimit.optional().meta({
    param: { name: "limit", in: "query" },
    // Documented as the interface types it (a decimal integer on the wire), not as the string zod parses.
    type: "integer",
    minimum: 1,
    maximum: 100,
    default: DEFAULT_PAGE_SIZE,
    description: "Maximum number of categories returned: decimal without leading zeros, 1 to 100.",
    example: DEFAULT_PAGE_SIZE,
  }),
  cursor: PageCursor.optional().meta({
    param: { name: "cursor", in: "query" },
    description: 'Opaque cursor from the previous page\'s `Link: rel="next"` header.',
  }),
});
export type ListCategoriesQuery = z.infer<typeof ListCategoriesQuery>;
