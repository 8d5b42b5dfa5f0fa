/**
 * Strong entity tags of JSON answers (docs/contract.md section 1, "Conditional requests and compression"): REST tags
 * its answers with them, and core compares updatePet's `If-Match` with an animal's.
 */
import { hash } from "node:crypto";
import type { Animal } from "@petstore/contracts";

/**
 * The tag of `json` sent with an operation's own `headers` (listPets' `Link`):
 * `"<27 base64url characters of SHA-1>"`.
 */
export function entityTag(json: string, headers?: Record<string, string>): string {
  let input = json;
  if (headers) for (const name in headers) input += `\n${name}: ${headers[name]}`;
  return `"${hash("sha1", input, "base64url")}"`;
}

/** The tag getPet, createPet and updatePet give `animal` (its JSON as they send it). */
export const animalTag = (animal: Animal): string => entityTag(JSON.stringify(animal));
