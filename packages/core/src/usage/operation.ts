/** What a /v1 request was and which window refused it: the words the recorder and the request log share. */

/** What a request was: one REST operation, a request without a valid key, or anything else (no operation). */
export type Operation =
  | "listPets"
  | "createPet"
  | "getPet"
  | "updatePet"
  | "listCategories"
  | "getMe"
  | "createOrder"
  | "listOrders"
  | "getOrder"
  | "completeOrder"
  | "cancelOrder"
  | "getInventory"
  | "unauthenticated"
  | "other";
/** The rate-limit window that refused a request (a ban is its own outcome, `key_banned`). */
export type RefusingWindow = "minute" | "day" | "month";
