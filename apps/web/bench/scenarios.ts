/**
 * The benched requests (docs/performance.md "How to reproduce"): the many-key mix real traffic looks like (1,000
 * keys chosen per request uniformly or Zipf-distributed, random animals, listPets pages of every filter and
 * depth, creates, and orders placed and completed), and the hot-key case (one key, one animal, one page: a page of
 * 20 and a full page of 100, where the representation work weighs most), plus an anonymous request answered 401.
 */
import { randomInt } from "node:crypto";
import { type Scenario, status } from "./measure.ts";
import { type Page, type Pick, pageQuery, uniform, zipf } from "./traffic.ts";

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** A line of a wrk request file (measure.ts `Scenario.requests`). */
const line = (method: string, path: string, key = "", body = "") =>
  `${method}\t${path}\t${key && `Bearer ${key}`}\t${body}`;

/** A GET whose path and key are drawn per request (the key for the server at `url`). */
function drawnGet(
  name: string,
  draw: (reference: boolean, url: string) => { path: string; key: string },
): Scenario {
  return {
    name,
    options: (url, reference = false) => ({
      url,
      requests: [
        {
          method: "GET",
          setupRequest: (request) => {
            const { path, key } = draw(reference, url);
            return { ...request, path, headers: { ...request.headers, ...auth(key) } };
          },
        },
      ],
    }),
    requests: (url, reference, count) =>
      Array.from({ length: count }, () => {
        const { path, key } = draw(reference, url);
        return line("GET", path, key);
      }),
    once: (url) => {
      const { path, key } = draw(false, url);
      return status(fetch(`${url}${path}`, { headers: auth(key) }));
    },
  };
}

/** createPet with a key drawn per request (for the server at `url`) and a random category. */
function drawnCreate(name: string, nextKey: (url: string) => string, categoryIds: number[]): Scenario {
  let serial = 0;
  const draw = (url: string) => ({
    key: nextKey(url),
    body: JSON.stringify({
      name: `bench ${process.pid} ${++serial}`,
      categoryId: categoryIds[randomInt(categoryIds.length)],
    }),
  });
  return {
    name,
    options: (url) => ({
      url,
      requests: [
        {
          method: "POST",
          path: "/v1/pets",
          setupRequest: (request) => {
            const { key, body } = draw(url);
            return { ...request, body, headers: { "content-type": "application/json", ...auth(key) } };
          },
        },
      ],
    }),
    requests: (url, _reference, count) =>
      Array.from({ length: count }, () => {
        const { key, body } = draw(url);
        return line("POST", "/v1/pets", key, body);
      }),
    once: (url) => {
      const { key, body } = draw(url);
      return status(
        fetch(`${url}/v1/pets`, {
          method: "POST",
          headers: { "content-type": "application/json", ...auth(key) },
          body,
        }),
      );
    },
  };
}

/** What the many-key scenarios draw from. */
export interface Population {
  keys: string[];
  /** Other keys, index for index, for the server at a base URL (`--accounts`: keys of consumer accounts). */
  keysByUrl?: Map<string, string[]>;
  animalIds: number[];
  categoryIds: number[];
  pages: Page[];
  /** Adds `count` available animals for the server at a base URL to order, and returns their ids. */
  orderable(url: string, count: number): Promise<number[]>;
}

/** Available animals the order scenario adds for each server before each measurement (more than a run orders). */
export const ORDERABLE_PER_RUN = 25_000;

/**
 * createOrder then completeOrder of that order, by each connection in turn, with a key drawn per pair (for the
 * server at `url`): every order takes an animal of that server's own, so that no server meets another's orders.
 */
function orderPairs(name: string, nextKey: (url: string) => string, population: Population): Scenario {
  const animals = new Map<string, number[]>();
  const nextAnimal = (url: string) => {
    const left = animals.get(url);
    // A pool used up: the orders are 409s from then on, which the results' status counts show.
    return left?.pop() ?? 1;
  };
  const post = (path: string, key: string, body?: string) => ({
    method: "POST",
    path,
    headers: { ...auth(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body }),
  });
  return {
    name,
    prepare: async (targets) => {
      for (const t of targets)
        animals.set(t.baseUrl, (await population.orderable(t.baseUrl, ORDERABLE_PER_RUN)).reverse());
    },
    options: (url) => ({
      url,
      requests: [
        {
          method: "POST",
          setupRequest: (request, context) => {
            context.key = nextKey(url);
            const body = JSON.stringify({ petId: nextAnimal(url) });
            return { ...request, ...post("/v1/store/orders", context.key as string, body) };
          },
          onResponse: (status, body, context) => {
            if (status === 201) context.order = (JSON.parse(body) as { id: number }).id;
          },
        },
        {
          method: "POST",
          setupRequest: (request, context) =>
            context.order === undefined
              ? undefined
              : { ...request, ...post(`/v1/store/orders/${context.order}/complete`, context.key as string) },
        },
      ],
    }),
    once: async (url) => {
      const key = nextKey(url);
      const placed = await fetch(`${url}/v1/store/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth(key) },
        body: JSON.stringify({ petId: nextAnimal(url) }),
      });
      if (placed.status !== 201) return status(Promise.resolve(placed));
      const { id } = (await placed.json()) as { id: number };
      return status(fetch(`${url}/v1/store/orders/${id}/complete`, { method: "POST", headers: auth(key) }));
    },
  };
}

/** The many-key scenarios over `population`. */
export function manyKeyScenarios(population: Population): Scenario[] {
  const { keys, animalIds, categoryIds, pages } = population;
  const n = keys.length;
  const keysAt = (url: string) => population.keysByUrl?.get(url) ?? keys;
  const pickers: [string, Pick][] = [
    ["uniform", uniform(n)],
    ["Zipf", zipf(n)],
  ];
  const keyOf = (pick: Pick) => (url: string) => keysAt(url)[pick()] as string;
  return [
    ...pickers.map(([how, pick]) =>
      drawnGet(`getPet, ${n} keys ${how}, random ids`, (_reference, url) => ({
        path: `/v1/pets/${animalIds[randomInt(animalIds.length)]}`,
        key: keyOf(pick)(url),
      })),
    ),
    ...pickers.map(([how, pick]) =>
      drawnGet(`listPets, ${n} keys ${how}, random pages`, (reference, url) => ({
        path: `/v1/pets?${pageQuery(pages[randomInt(pages.length)] as Page, reference)}`,
        key: keyOf(pick)(url),
      })),
    ),
    drawnCreate(`createPet, ${n} keys Zipf`, keyOf(zipf(n)), categoryIds),
    orderPairs(`createOrder + completeOrder, ${n} keys Zipf`, keyOf(zipf(n)), population),
  ];
}

/** The hot-key scenarios for API key `key`, an existing animal id and category id. */
export function hotKeyScenarios(
  key: string,
  petId: bigint | number,
  categoryId: bigint | number,
): Scenario[] {
  const one = (name: string, path: string): Scenario => ({
    name,
    options: (url) => ({ url: `${url}${path}`, headers: auth(key) }),
    requests: () => [line("GET", path, key)],
    once: (url) => status(fetch(`${url}${path}`, { headers: auth(key) })),
  });
  return [
    one("one key: GET /v1/pets?limit=20", "/v1/pets?limit=20"),
    one("one key: GET /v1/pets?limit=100", "/v1/pets?limit=100"),
    one("one key: GET /v1/pets/{id}", `/v1/pets/${petId}`),
    drawnCreate("one key: POST /v1/pets", () => key, [Number(categoryId)]),
    {
      name: "GET /v1/pets (no key, 401)",
      options: (url) => ({ url: `${url}/v1/pets?limit=20` }),
      requests: () => [line("GET", "/v1/pets?limit=20")],
      once: (url) => status(fetch(`${url}/v1/pets?limit=20`)),
    },
  ];
}
