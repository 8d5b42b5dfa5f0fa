/**
 * API key scopes (docs/contract.md section 2, "Scopes"): what a key may do. `pets:read` lists and fetches
 * animals and the inventory, `pets:write` adds and changes them, `orders:read` lists and fetches the key's orders,
 * `orders:write` places, completes and cancels them; none implies another, and a key holds one or more (all by
 * default). A call outside the key's scopes is 403 `insufficient_scope` (RFC 6750 section 3.1).
 */
import { typeMessage, z } from "./zod.ts";

/** Every scope, in the one order lists and forms show them in. */
export const API_KEY_SCOPES = ["pets:read", "pets:write", "orders:read", "orders:write"] as const;
export const ApiKeyScope = z.enum(API_KEY_SCOPES, {
  error: typeMessage(`must be one of ${API_KEY_SCOPES.join(", ")}`),
});
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

/** What a key gets when its scopes are not given: all of them. */
export const DEFAULT_API_KEY_SCOPES: readonly ApiKeyScope[] = API_KEY_SCOPES;

/** What each scope allows, in plain words (forms, the CLI's usage text, the OpenAPI document). */
export const SCOPE_DESCRIPTIONS: Record<ApiKeyScope, string> = {
  "pets:read": "list and fetch animals",
  "pets:write": "add and change animals",
  "orders:read": "list and fetch its orders",
  "orders:write": "place, complete and cancel orders",
};

/**
 * A key's scopes: at least one, each known; duplicates are dropped and the result is in `API_KEY_SCOPES`
 * order, so the same set is always stored and shown the same way.
 */
export const ApiKeyScopes = z
  .array(ApiKeyScope, { error: typeMessage("must be a list of scopes") })
  .min(1, { error: `must name at least one scope (${API_KEY_SCOPES.join(", ")})` })
  .transform((scopes) => API_KEY_SCOPES.filter((s) => scopes.includes(s)));

/**
 * Parses a comma-separated list (`pets:read,pets:write`, as the CLI takes it) into a scope list for
 * `ApiKeyScopes`; blanks around commas are ignored.
 */
export const scopeList = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
