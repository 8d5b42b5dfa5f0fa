/**
 * `@petstore/client`: typed client of the Pet Store REST API v1, with retries, paging and rate-limit state.
 * See README.md (beside package.json).
 */
export {
  type CallOptions,
  type Category,
  type CategoryPage,
  type CreatedOrder,
  type CreatedPet,
  type CreatePetOptions,
  createPetStoreClient,
  type Inventory,
  type ListCategoriesQuery,
  type ListOrdersQuery,
  type ListPetsQuery,
  type Me,
  type NewOrder,
  type NewPet,
  type Order,
  type OrderPage,
  type OrderStatus,
  type Pet,
  type PetPage,
  type PetPatch,
  type PetStatus,
  type PetStoreClient,
  type PetStoreClientOptions,
  type UpdatedPet,
  type UpdatePetOptions,
} from "./client.js";
export {
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
  PetStoreError,
  PetStoreNetworkError,
} from "./errors.js";
export type { components, operations, paths } from "./generated/v1.js";
export type { RateLimitState } from "./rate-limit.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
