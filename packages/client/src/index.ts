/**
 * `@petstore/client`: typed client of the Pet Store REST API v1, with retries, paging and rate-limit state.
 * See the repository README, "TypeScript client".
 */
export {
  type CallOptions,
  type CreatePetOptions,
  createPetStoreClient,
  type ListPetsQuery,
  type NewPet,
  type Pet,
  type PetPage,
  type PetStatus,
  type PetStoreClient,
  type PetStoreClientOptions,
} from "./client.ts";
export {
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
  PetStoreError,
  PetStoreNetworkError,
} from "./errors.ts";
export type { components, operations, paths } from "./generated/v1.ts";
export type { RateLimitState } from "./rate-limit.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
