/**
 * Password hashing with scrypt (node:crypto), stored as `scrypt$N$r$p$<salt>$<hash>` (base64url). New hashes
 * take the configured cost (`config.passwordHashCost`, log2 N; PASSWORD_HASH_COST); each stored hash keeps its
 * own, so the cost can change without breaking stored hashes. Verification is constant-time.
 */
import { randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";

const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;

function scrypt(password: string, salt: Buffer, options: Required<Pick<ScryptOptions, "N" | "r" | "p">>) {
  const maxmem = 256 * options.N * options.r + 16 * 1024 * 1024;
  return new Promise<Buffer>((resolve, reject) => {
    scryptCallback(password.normalize("NFKC"), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Hashes `password` with a fresh random salt at scrypt cost N = 2^`costLog2` (the validated
 * `config.passwordHashCost`).
 */
export async function hashPassword(password: string, costLog2: number): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const cost = { N: 2 ** costLog2, r: BLOCK_SIZE, p: PARALLELISM };
  const key = await scrypt(password, salt, cost);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/**
 * True when `password` matches `stored`, at the cost `stored` names; false for a wrong password or a malformed
 * hash.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

const decoys = new Map<number, Promise<string>>();

/**
 * A valid hash of a random password at cost 2^`costLog2` (made once per cost): verified against when the email
 * is unknown, so timing reveals nothing.
 */
export function decoyPasswordHash(costLog2: number): Promise<string> {
  let decoy = decoys.get(costLog2);
  if (!decoy) {
    decoy = hashPassword(randomBytes(24).toString("base64url"), costLog2);
    decoys.set(costLog2, decoy);
  }
  return decoy;
}
