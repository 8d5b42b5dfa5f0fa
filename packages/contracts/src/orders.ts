/**
 * The store section's schemas (docs/contract.md section 1, "The store section"): Order, createOrder's body, the
 * listOrders query, updatePet's merge patch, the inventory, and the people's order search.
 */

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./defaults.ts";
import { CategoryId, MAX_PET_ID, PageCursor, PageLimit, PetIdParam, PetName, PetStatus } from "./pets.ts";
import { typeMessage, z } from "./zod.ts";

/** An order's states, in their one order: `placed` holds the animal; the others are final. */
export const ORDER_STATUSES = ["placed", "completed", "cancelled", "expired"] as const;
export const OrderStatus = z
  .enum(ORDER_STATUSES, { error: typeMessage(`must be one of ${ORDER_STATUSES.join(", ")}`) })
  .meta({
    id: "OrderStatus",
    description:
      "`placed`: the animal is held (`pending`) until `holdUntil`; `completed`: sold; `cancelled` or `expired`: the animal is `available` again.",
  });
export type OrderStatus = z.infer<typeof OrderStatus>;

/** Longest hold an order may ask for, in minutes (one day). */
export const MAX_HOLD_MINUTES = 1440;

const int64 = (description: string) =>
  z.int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ format: "int64", description });
const instant = (description: string) => z.iso.datetime().meta({ description });

/** The answer's shape (documentation and types only: responses are built by core, never parsed). */
export const Order = z
  .object({
    id: int64("Unique identifier, assigned by the service."),
    petId: int64("The animal ordered."),
    status: OrderStatus,
    createdAt: instant("When the order was placed (RFC 3339, UTC)."),
    holdUntil: instant(
      "When the hold lapses unless the order is completed or cancelled first (RFC 3339, UTC).",
    ),
    closedAt: instant(
      "When the order was completed, cancelled or expired (an expired order's `holdUntil`); `null` while placed.",
    ).nullable(),
  })
  .meta({ id: "Order" });
export type Order = z.infer<typeof Order>;

const idRule = (what: string) =>
  z
    .int({
      error: (issue) =>
        issue.input === undefined
          ? "is required"
          : issue.code === "too_big"
            ? "is too large"
            : "must be an integer",
    })
    .min(1, { error: "must be at least 1" })
    .max(Number.MAX_SAFE_INTEGER, { error: "is too large" })
    .meta({ format: "int64", description: what });

/** createOrder's body: the animal, and optionally how long to hold it. */
export const OrderCreate = z
  .strictObject({
    petId: idRule("An available animal's id."),
    holdMinutes: z
      .int({ error: typeMessage(`must be a whole number from 1 to ${MAX_HOLD_MINUTES}`) })
      .min(1, { error: "must be at least 1" })
      .max(MAX_HOLD_MINUTES, { error: `must be at most ${MAX_HOLD_MINUTES}` })
      .optional()
      .meta({
        description:
          "How long the animal is held for the order, in minutes (1 to 1440); the deployment's default (30) when absent.",
      }),
  })
  .meta({ id: "OrderCreate" });
export type OrderCreate = z.infer<typeof OrderCreate>;

/** An id in a path or query: a plain decimal from 1 to 2^63-1 (the rule of getPet's `petId`), as a bigint. */
export const IdParam = PetIdParam;

/** listOrders' query: listPets' `limit` and `cursor`, filtered by `status` and `petId`. */
export const ListOrdersQuery = z.object({
  limit: PageLimit.optional().meta({
    param: { name: "limit", in: "query" },
    type: "integer",
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: "Maximum number of orders returned: decimal without leading zeros, 1 to 100.",
    example: DEFAULT_PAGE_SIZE,
  }),
  status: OrderStatus.optional().meta({ param: { name: "status", in: "query" } }),
  petId: IdParam.optional().meta({
    param: { name: "petId", in: "query" },
    type: "integer",
    format: "int64",
    minimum: 1,
    maximum: Number(MAX_PET_ID),
    description: "Only the orders of this animal: decimal without leading zeros, 1 to 9223372036854775807.",
  }),
  cursor: PageCursor.optional().meta({
    param: { name: "cursor", in: "query" },
    description: 'Opaque cursor from the previous page\'s `Link: rel="next"` header.',
  }),
});
export type ListOrdersQuery = z.infer<typeof ListOrdersQuery>;

/**
 * updatePet's body, a JSON merge patch (RFC 7396) of an animal: the fields given change, `status: null` removes
 * the status; `name` and `categoryId` cannot be removed.
 */
export const PetPatch = z
  .strictObject({
    name: PetName.optional().meta({
      description: "The animal's new name, with createPet's rules.",
    }),
    categoryId: CategoryId.optional().meta({ format: "int64", description: "An existing category's id." }),
    status: PetStatus.nullable().optional().meta({
      description: "The new status; `null` removes it. Refused (409) while an order holds the animal.",
    }),
  })
  .meta({ id: "PetPatch" });
export type PetPatch = z.infer<typeof PetPatch>;

const count = (description: string) => z.int().min(0).meta({ description });

/** getInventory's answer: how many animals are in each state. */
export const Inventory = z
  .object({
    available: count("Animals that can be ordered."),
    pending: count("Animals held by an order (or set pending by the store)."),
    sold: count("Animals sold."),
    unset: count("Animals without a status."),
  })
  .meta({ id: "Inventory" });
export type Inventory = z.infer<typeof Inventory>;

/** An order by id, as the dashboard, the portal and the CLI name it. */
export const OrderRef = z.strictObject({ id: z.int().min(1).max(Number.MAX_SAFE_INTEGER) });
export type OrderRef = z.infer<typeof OrderRef>;

/**
 * One page of orders for people (the dashboard's Orders page, an animal's orders, the portal): newest first,
 * filtered by status, consumer account (`accountId`, staff only), animal, id and a time range `[from, to)` of
 * instants (the UI turns a range of UTC days into them).
 */
export const OrderSearch = z
  .object({
    page: z.int().min(1).default(1),
    pageSize: z.int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
    status: OrderStatus.optional(),
    accountId: z.uuid({ error: "must be an account id" }).optional(),
    petId: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    id: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    from: z.iso.datetime({ error: "must be a date and time" }).optional(),
    to: z.iso.datetime({ error: "must be a date and time" }).optional(),
  })
  .refine((v) => !v.from || !v.to || Date.parse(v.from) < Date.parse(v.to), {
    path: ["to"],
    message: "must be after the start of the range",
  });
export type OrderSearch = z.infer<typeof OrderSearch>;
