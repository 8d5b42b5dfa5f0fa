/**
 * Helpers of the store section's suites (docs/contract.md section 1, "The store section"): consumer accounts with
 * keys, available animals, and the calls of createOrder, completeOrder, cancelOrder and updatePet.
 */
import { databaseOf } from "@petstore/core/testing";
import { type CallResult, type Ctx, seedPets } from "./support.ts";

export interface Order {
  id: number;
  petId: number;
  status: "placed" | "completed" | "cancelled" | "expired";
  createdAt: string;
  holdUntil: string;
  closedAt: string | null;
}

export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
}

/** A consumer account named `name` with `count` keys (Pro: 300 requests a minute). */
export async function accountWithKeys(t: Ctx, name: string, count = 2) {
  const email = `owner@${name.toLowerCase().replace(/\W+/g, "-")}.example`;
  const account = await t.s.rt.accounts.create({ name, plan: "pro", ownerEmail: email }, "test");
  const keys: IssuedKey[] = [];
  for (let i = 0; i < count; i++)
    keys.push(await t.s.rt.forAccount(account.id).keys.create({ name: `${name} key ${i}` }, "test"));
  return { id: account.id, keys };
}

/** A key outside accounts (enterprise, so that no limit gets in the way). */
export const storeKey = async (t: Ctx, name: string): Promise<IssuedKey> =>
  t.s.rt.apiKeys.create({ name, plan: "enterprise", perMinute: 100_000, perDay: 1_000_000 }, "test");

/** `count` available animals; @returns their ids. */
export const availablePets = (t: Ctx, count = 1) => seedPets(t.s, count, () => ({ status: "available" }));

/** POST /v1/store/orders with `body` (a string is sent as is) and `key` (the harness key by default). */
export const placeOrder = (t: Ctx, body: unknown, key?: string, headers: Record<string, string> = {}) =>
  t.call("createOrder", "/v1/store/orders", {
    method: "POST",
    headers: { ...t.auth(key), "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** POST /v1/store/orders/{id}/complete or /cancel, without a body unless `init` gives one. */
export const closeOrder = (
  t: Ctx,
  id: number | string,
  action: "complete" | "cancel",
  key?: string,
  init: RequestInit = {},
): Promise<CallResult> =>
  t.call(action === "complete" ? "completeOrder" : "cancelOrder", `/v1/store/orders/${id}/${action}`, {
    method: "POST",
    ...init,
    headers: { ...t.auth(key), ...(init.headers as Record<string, string> | undefined) },
  });

/** PATCH /v1/pets/{id} with a merge patch and `headers` (If-Match, another Content-Type). */
export const patchPet = (t: Ctx, id: number, patch: unknown, headers: Record<string, string> = {}) =>
  t.call("updatePet", `/v1/pets/${id}`, {
    method: "PATCH",
    headers: { ...t.auth(), "content-type": "application/merge-patch+json", ...headers },
    body: typeof patch === "string" ? patch : JSON.stringify(patch),
  });

/** The animal's status as stored. */
export const statusOf = async (t: Ctx, petId: number) =>
  (await databaseOf(t.s.rt).prisma.pet.findUniqueOrThrow({ where: { id: BigInt(petId) } })).status;

/** Orders in the database. */
export const orderCount = (t: Ctx) => databaseOf(t.s.rt).prisma.order.count();
