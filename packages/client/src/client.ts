/**
 * `createPetStoreClient`: the typed client of the Pet Store REST API v1 (docs/contract.md sections 1 and 3).
 * Requests go through openapi-fetch with the types generated from the served OpenAPI document; every call
 * retries as `retryingCall` describes. Only fetch and web-standard APIs are used, so it runs in Node 20
 * and in browsers.
 *
 * Relative imports name the emitted `.js` files: the package is built with tsc and its `.d.ts` files keep
 * these specifiers, which every TypeScript version and resolution mode a consumer may use can follow.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/v1.js";
import {
  type ListCategoriesQuery,
  type ListPetsQuery,
  nextCategoriesQuery,
  nextPageQuery,
} from "./paging.js";
import { type RateLimitState, rateLimitOf } from "./rate-limit.js";
import { type RetryOptions, retryPolicy } from "./retry.js";
import { type CallEnvironment, retryingCall } from "./retrying-call.js";

export type Pet = components["schemas"]["Animal"];
export type NewPet = components["schemas"]["NewPet"];
export type PetStatus = components["schemas"]["PetStatus"];
export type Category = components["schemas"]["Category"];
/** What `me()` answers: the calling key, its plan and limits, and its rate-limit windows after that call. */
export type Me = components["schemas"]["Me"];
export type { ListCategoriesQuery, ListPetsQuery };

// Optional options also accept `undefined`, so that callers compiled with `exactOptionalPropertyTypes` can
// pass a value they may not have (`{ timeoutMs: settings.timeout }`).
export interface PetStoreClientOptions {
  /** The API's `{base_url}`, /v1 included, e.g. `https://api.petstore.example/v1`. */
  baseUrl: string;
  /** The API key (`pet_live_…` or `pet_test_…`), sent as the bearer token. */
  apiKey: string;
  /** Retry budget of each call; see `RetryOptions` for the defaults. */
  retry?: RetryOptions | undefined;
  /** Time limit of one attempt in ms (default 30 000); an attempt past it is aborted and retried. */
  timeoutMs?: number | undefined;
  /** fetch to send requests with (default: the global fetch). */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** Waits `ms` milliseconds between attempts (default: a timer); rejects when `signal` aborts. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Uniform random number in [0, 1) for the backoff jitter (default `Math.random`). */
  random?: (() => number) | undefined;
  /** Current time in ms since the epoch, to read a Retry-After date (default `Date.now`). */
  now?: (() => number) | undefined;
}

export interface CallOptions {
  /** Aborts the call, its retries and waits included; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

export interface CreatePetOptions extends CallOptions {
  /**
   * Idempotency-Key of this creation (1 to 255 printable ASCII characters). Default: a new random UUID per
   * call. Either way every retry of the call sends the same key, so the animal is created once.
   */
  idempotencyKey?: string | undefined;
}

export interface PetPage {
  /** The animals of this page, in ascending id order. */
  pets: Pet[];
  /** The query of the next page (from `Link: rel="next"`) for `listPets`; undefined on the last page. */
  next?: ListPetsQuery | undefined;
}

export interface CategoryPage {
  /** The categories of this page, in ascending id order. */
  categories: Category[];
  /** The query of the next page (from `Link: rel="next"`) for `listCategories`; undefined on the last page. */
  next?: ListCategoriesQuery | undefined;
}

/** What `createPet` answers: the animal, and whether the API replayed an earlier creation. */
export interface CreatedPet {
  /** The animal, as created by the first request that sent this Idempotency-Key. */
  pet: Pet;
  /**
   * True when the answer is a replay (`Idempotent-Replayed: true`, docs/contract.md section 1): a request with
   * the same Idempotency-Key and body had already created `pet`, and this call created nothing. That earlier
   * request is either an earlier call with the same `idempotencyKey`, or an attempt of this very call whose
   * answer was lost (a timeout or a dropped connection) before the client retried it.
   */
  replayed: boolean;
}

export interface PetStoreClient {
  /**
   * listPets: one page of animals in ascending id order.
   * @param query `limit` (1-100, default 20), `status`, and `cursor` (from the previous page's `next`).
   * @throws PetStoreError, PetStoreNetworkError
   */
  listPets(query?: ListPetsQuery, options?: CallOptions): Promise<PetPage>;
  /**
   * createPet: adds an animal, with an Idempotency-Key (generated unless given) reused by every retry.
   * @returns `{ pet, replayed }`: the created animal, and `replayed: true` when an earlier request with the
   * same key had created it (this call then created nothing).
   * @throws PetStoreError (e.g. `validation_failed` with `details`), PetStoreNetworkError
   */
  createPet(pet: NewPet, options?: CreatePetOptions): Promise<CreatedPet>;
  /**
   * getPet: one animal by id.
   * @deprecated The API removes getPet on 2030-12-05 (then 410 `gone`). Use `listPets` / `pets.all` with
   * the `status` filter instead.
   * @throws PetStoreError (`not_found`, `gone`, …), PetStoreNetworkError
   */
  getPet(petId: number, options?: CallOptions): Promise<Pet>;
  pets: {
    /**
     * Every matching animal, page after page (following `Link: rel="next"`), each exactly once.
     * @param query `status` filter and page size `limit`.
     * @throws PetStoreError, PetStoreNetworkError from the page that failed.
     */
    all(query?: Omit<ListPetsQuery, "cursor">, options?: CallOptions): AsyncGenerator<Pet, void, undefined>;
  };
  /**
   * listCategories (an addition to the interface): one page of categories in ascending id order; their ids are
   * the `categoryId` of `createPet`. Needs the `pets:read` scope.
   * @param query `limit` (1-100, default 20) and `cursor` (from the previous page's `next`).
   * @throws PetStoreError, PetStoreNetworkError
   */
  listCategories(query?: ListCategoriesQuery, options?: CallOptions): Promise<CategoryPage>;
  categories: {
    /**
     * Every category, page after page (following `Link: rel="next"`), each exactly once.
     * @param query page size `limit`.
     * @throws PetStoreError, PetStoreNetworkError from the page that failed.
     */
    all(
      query?: Omit<ListCategoriesQuery, "cursor">,
      options?: CallOptions,
    ): AsyncGenerator<Category, void, undefined>;
  };
  /**
   * getMe (an addition to the interface): the client's own key (prefix, name, scopes, expiry), its plan and
   * effective limits, and its minute and day windows after this call, which counts like any other.
   * @throws PetStoreError, PetStoreNetworkError
   */
  me(options?: CallOptions): Promise<Me>;
  /** The rate-limit state of the last response that reported one; undefined before the first. */
  readonly rateLimit: RateLimitState | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A random Idempotency-Key: a UUID, or 32 hex digits where `randomUUID` is unavailable (insecure pages). */
function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/**
 * A client for the API at `options.baseUrl`.
 * @throws RangeError for invalid retry options.
 */
export function createPetStoreClient(options: PetStoreClientOptions): PetStoreClient {
  const env: CallEnvironment = {
    policy: retryPolicy(options.retry),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
  };
  let rateLimit: RateLimitState | undefined;
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
  });
  api.use({
    onResponse({ response }) {
      rateLimit = rateLimitOf(response.headers) ?? rateLimit;
    },
  });

  const listPets = async (query: ListPetsQuery = {}, call: CallOptions = {}): Promise<PetPage> => {
    const { data, response } = await retryingCall(
      env,
      "listPets",
      (signal) => api.GET("/pets", { params: { query }, signal }),
      call.signal,
    );
    const next = nextPageQuery(response.headers);
    return next ? { pets: data, next } : { pets: data };
  };

  const listCategories = async (
    query: ListCategoriesQuery = {},
    call: CallOptions = {},
  ): Promise<CategoryPage> => {
    const { data, response } = await retryingCall(
      env,
      "listCategories",
      (signal) => api.GET("/categories", { params: { query }, signal }),
      call.signal,
    );
    const next = nextCategoriesQuery(response.headers);
    return next ? { categories: data, next } : { categories: data };
  };

  return {
    listPets,
    async createPet(pet, call = {}) {
      const idempotencyKey = call.idempotencyKey ?? newIdempotencyKey();
      const { data, response } = await retryingCall(
        env,
        "createPet",
        (signal) =>
          api.POST("/pets", { body: pet, params: { header: { "idempotency-key": idempotencyKey } }, signal }),
        call.signal,
      );
      return { pet: data, replayed: response.headers.get("idempotent-replayed") === "true" };
    },
    async getPet(petId, call = {}) {
      const { data } = await retryingCall(
        env,
        "getPet",
        (signal) => api.GET("/pets/{petId}", { params: { path: { petId } }, signal }),
        call.signal,
      );
      return data;
    },
    pets: {
      async *all(query = {}, call = {}) {
        let next: ListPetsQuery | undefined = query;
        while (next) {
          const page: PetPage = await listPets(next, call);
          yield* page.pets;
          next = page.next;
        }
      },
    },
    listCategories,
    categories: {
      async *all(query = {}, call = {}) {
        let next: ListCategoriesQuery | undefined = query;
        while (next) {
          const page: CategoryPage = await listCategories(next, call);
          yield* page.categories;
          next = page.next;
        }
      },
    },
    async me(call = {}) {
      const { data } = await retryingCall(env, "getMe", (signal) => api.GET("/me", { signal }), call.signal);
      return data;
    },
    get rateLimit() {
      return rateLimit;
    },
  };
}
