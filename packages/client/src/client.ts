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
  type ListOrdersQuery,
  type ListPetsQuery,
  nextCategoriesQuery,
  nextOrdersQuery,
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
/** A JSON merge patch of an animal (`pets.update`): the fields given change; `status: null` removes it. */
export type PetPatch = components["schemas"]["PetPatch"];
export type Order = components["schemas"]["Order"];
export type OrderStatus = components["schemas"]["OrderStatus"];
/** What `orders.create` sends: the animal, and optionally the hold in minutes (1 to 1440). */
export type NewOrder = components["schemas"]["OrderCreate"];
/** What `inventory()` answers: the number of animals in each state. */
export type Inventory = components["schemas"]["Inventory"];
export type { ListCategoriesQuery, ListOrdersQuery, ListPetsQuery };

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

export interface OrderPage {
  /** The orders of this page, newest first. */
  orders: Order[];
  /** The query of the next page (from `Link: rel="next"`) for `orders.list`; undefined on the last page. */
  next?: ListOrdersQuery | undefined;
}

export interface UpdatePetOptions extends CallOptions {
  /**
   * The ETag the animal was read with (`pets.update`'s or `createPet`'s `etag`, or getPet's): the change applies
   * only if nobody changed the animal since, else it throws `precondition_failed` (412). A retried attempt whose
   * first try did apply meets its own change: read the animal again on a 412.
   */
  ifMatch?: string | undefined;
}

/** What `pets.update` answers: the animal after the change and its ETag (for the next `ifMatch`). */
export interface UpdatedPet {
  pet: Pet;
  etag: string;
}

/** What `orders.create` answers: the order, and whether the API replayed an earlier placement. */
export interface CreatedOrder {
  order: Order;
  /** True when an earlier request with the same Idempotency-Key placed `order` (this call placed nothing). */
  replayed: boolean;
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
  /** The animal's ETag, for a later `pets.update`'s `ifMatch`. */
  etag: string;
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
    /**
     * updatePet: changes an animal by a JSON merge patch (RFC 7396). Needs the `pets:write` scope.
     * @returns `{ pet, etag }`: the animal after the change and its ETag.
     * @throws PetStoreError (`precondition_failed` when `ifMatch` is stale, `conflict` for a status change of
     *   an animal an order holds, `not_found`, `validation_failed`), PetStoreNetworkError
     */
    update(petId: number, patch: PetPatch, options?: UpdatePetOptions): Promise<UpdatedPet>;
  };
  /** The store section: orders of animals (docs/contract.md section 1, "The store section"). */
  orders: {
    /**
     * createOrder: orders an available animal, held for the caller until the order is completed or cancelled
     * or its hold lapses, with an Idempotency-Key (generated unless given) reused by every retry. Needs
     * `orders:write`.
     * @throws PetStoreError (`conflict` when the animal is not available, `validation_failed`), PetStoreNetworkError
     */
    create(order: NewOrder, options?: CreatePetOptions): Promise<CreatedOrder>;
    /**
     * listOrders: one page of the caller's orders, newest first. Needs `orders:read`.
     * @param query `limit`, `status`, `petId`, and `cursor` (from the previous page's `next`).
     */
    list(query?: ListOrdersQuery, options?: CallOptions): Promise<OrderPage>;
    /** Every matching order, page after page, each exactly once. */
    all(
      query?: Omit<ListOrdersQuery, "cursor">,
      options?: CallOptions,
    ): AsyncGenerator<Order, void, undefined>;
    /** getOrder. @throws PetStoreError (`not_found`, also for another owner's order), PetStoreNetworkError */
    get(orderId: number, options?: CallOptions): Promise<Order>;
    /**
     * completeOrder: the order `completed`, its animal `sold`. Safe to retry (a repeat answers the same order).
     * @throws PetStoreError (`conflict` when the order is no longer placed), PetStoreNetworkError
     */
    complete(orderId: number, options?: CallOptions): Promise<Order>;
    /** cancelOrder: the order `cancelled`, its animal `available`. Safe to retry. @throws as `complete`. */
    cancel(orderId: number, options?: CallOptions): Promise<Order>;
  };
  /** getInventory: the number of animals in each state. Needs `pets:read`. */
  inventory(options?: CallOptions): Promise<Inventory>;
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

  const listOrders = async (query: ListOrdersQuery = {}, call: CallOptions = {}): Promise<OrderPage> => {
    const { data, response } = await retryingCall(
      env,
      "listOrders",
      (signal) => api.GET("/store/orders", { params: { query }, signal }),
      call.signal,
    );
    const next = nextOrdersQuery(response.headers);
    return next ? { orders: data, next } : { orders: data };
  };

  const closeOrder = async (orderId: number, action: "complete" | "cancel", call: CallOptions) => {
    const { data } = await retryingCall(
      env,
      action === "complete" ? "completeOrder" : "cancelOrder",
      (signal) =>
        action === "complete"
          ? api.POST("/store/orders/{orderId}/complete", { params: { path: { orderId } }, signal })
          : api.POST("/store/orders/{orderId}/cancel", { params: { path: { orderId } }, signal }),
      call.signal,
    );
    return data;
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
      return {
        pet: data,
        replayed: response.headers.get("idempotent-replayed") === "true",
        etag: response.headers.get("etag") ?? "",
      };
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
      async update(petId, patch, call = {}) {
        const header = call.ifMatch === undefined ? undefined : { "If-Match": call.ifMatch };
        const { data, response } = await retryingCall(
          env,
          "updatePet",
          (signal) =>
            api.PATCH("/pets/{petId}", {
              params: { path: { petId }, ...(header ? { header } : {}) },
              body: patch,
              signal,
            }),
          call.signal,
        );
        return { pet: data, etag: response.headers.get("etag") ?? "" };
      },
    },
    orders: {
      async create(order, call = {}) {
        const idempotencyKey = call.idempotencyKey ?? newIdempotencyKey();
        const { data, response } = await retryingCall(
          env,
          "createOrder",
          (signal) =>
            api.POST("/store/orders", {
              body: order,
              params: { header: { "idempotency-key": idempotencyKey } },
              signal,
            }),
          call.signal,
        );
        return { order: data, replayed: response.headers.get("idempotent-replayed") === "true" };
      },
      list: listOrders,
      async *all(query = {}, call = {}) {
        let next: ListOrdersQuery | undefined = query;
        while (next) {
          const page: OrderPage = await listOrders(next, call);
          yield* page.orders;
          next = page.next;
        }
      },
      async get(orderId, call = {}) {
        const { data } = await retryingCall(
          env,
          "getOrder",
          (signal) => api.GET("/store/orders/{orderId}", { params: { path: { orderId } }, signal }),
          call.signal,
        );
        return data;
      },
      complete: (orderId, call = {}) => closeOrder(orderId, "complete", call),
      cancel: (orderId, call = {}) => closeOrder(orderId, "cancel", call),
    },
    async inventory(call = {}) {
      const { data } = await retryingCall(
        env,
        "getInventory",
        (signal) => api.GET("/store/inventory", { signal }),
        call.signal,
      );
      return data;
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
