/**
 * The benched requests: a page of 20 animals and a full page of 100 (the size where the answer's
 * representation work, ETag and serialisation, weighs most), one animal, a new animal, and an anonymous
 * request answered 401 (docs/interface.md, `/v1/pets`).
 */
import { type Scenario, status } from "./measure.ts";

/** Scenarios for API key `key`, an existing animal id and category id. */
export function scenarios(key: string, petId: bigint | number, categoryId: bigint | number): Scenario[] {
  const auth = { authorization: `Bearer ${key}` };
  let serial = 0;
  const newPet = () =>
    JSON.stringify({ name: `bench ${process.pid} ${++serial}`, categoryId: Number(categoryId) });
  const postHeaders = { ...auth, "content-type": "application/json" };
  return [
    {
      name: "GET /v1/pets?limit=20",
      options: (url) => ({ url: `${url}/v1/pets?limit=20`, headers: auth }),
      once: (url) => status(fetch(`${url}/v1/pets?limit=20`, { headers: auth })),
    },
    {
      name: "GET /v1/pets?limit=100",
      options: (url) => ({ url: `${url}/v1/pets?limit=100`, headers: auth }),
      once: (url) => status(fetch(`${url}/v1/pets?limit=100`, { headers: auth })),
    },
    {
      name: "GET /v1/pets/{id}",
      options: (url) => ({ url: `${url}/v1/pets/${petId}`, headers: auth }),
      once: (url) => status(fetch(`${url}/v1/pets/${petId}`, { headers: auth })),
    },
    {
      name: "POST /v1/pets",
      options: (url) => ({
        url,
        requests: [
          {
            method: "POST",
            path: "/v1/pets",
            headers: postHeaders,
            setupRequest: (request) => ({ ...request, body: newPet() }),
          },
        ],
      }),
      once: (url) =>
        status(fetch(`${url}/v1/pets`, { method: "POST", headers: postHeaders, body: newPet() })),
    },
    {
      name: "GET /v1/pets (no key, 401)",
      options: (url) => ({ url: `${url}/v1/pets?limit=20` }),
      once: (url) => status(fetch(`${url}/v1/pets?limit=20`)),
    },
  ];
}
