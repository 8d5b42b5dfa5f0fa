/**
 * API key format (docs/contract.md section 2): `pet_live_` (production) or `pet_test_` (staging), then 32 random
 * base62 characters (~190 bits), then a 6-character base62 CRC32 of everything before it, so a mistyped key
 * is rejected without a database look-up and secret scanners can recognise leaked keys.
 * Keys are stored only as their SHA-256 (hex); the first 12 characters are the display prefix.
 */
import { hash, randomInt } from "node:crypto";
import { crc32 } from "node:zlib";

export type KeyEnvironment = "production" | "staging";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_PREFIX_LENGTH = 12;
const PATTERN = /^pet_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export const keyPrefixFor = (environment: KeyEnvironment) =>
  environment === "production" ? "pet_live_" : "pet_test_";

function base62Checksum(body: string): string {
  let n = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** Generates a new secret key for `environment` (uniform base62 from the OS CSPRNG). */
export function generateApiKey(environment: KeyEnvironment): string {
  let random = "";
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  const body = keyPrefixFor(environment) + random;
  return body + base62Checksum(body);
}

/**
 * Checks shape and checksum; returns the key's environment, or `undefined` for anything that is not a
 * well-formed key. Does no I/O.
 */
export function parseApiKey(key: string): KeyEnvironment | undefined {
  const match = PATTERN.exec(key);
  if (!match) return undefined;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  if (base62Checksum(body) !== match[3]) return undefined;
  return match[1] === "live" ? "production" : "staging";
}

/** SHA-256 of the whole key, lower-case hex: what the database stores. One-shot `hash`: it runs on every request. */
export const hashApiKey = (key: string): string => hash("sha256", key, "hex");

/** Display prefix: the first 12 characters (e.g. `pet_live_4Fz`). */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX_LENGTH);
