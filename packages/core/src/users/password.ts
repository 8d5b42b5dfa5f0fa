/**
 * Password hashing with scrypt (node:crypto), stored as `scrypt$N$r$p$<salt>$<hash>` (base64url). New hashes
 * take the configured cost (`config.passwordHashCost`, log2 N; PASSWORD_HASH_COST); each stored hash keeps its
 * own, so the cost can change without breaking stored hashes (a sign-in rehashes at the configured cost).
 * Verification is constant-time. Every computation of an instance runs under its `PasswordWork` cap.
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

const decoys = new Map<number, string>();

/**
 * A well-formed hash at cost 2^`costLog2` that no password matches (a random salt and a random 64-byte key:
 * a match has probability 2^-512), verified against when the email is unknown so that such a sign-in costs
 * exactly one scrypt at the configured cost, like a known account's. Made without hashing, once per cost.
 */
export function decoyPasswordHash(costLog2: number): string {
  let decoy = decoys.get(costLog2);
  if (!decoy) {
    const N = 2 ** costLog2;
    const [salt, key] = [randomBytes(SALT_BYTES), randomBytes(KEY_LENGTH)].map((b) =>
      b.toString("base64url"),
    );
    decoy = ["scrypt", N, BLOCK_SIZE, PARALLELISM, salt, key].join("$");
    decoys.set(costLog2, decoy);
  }
  return decoy;
}

/** True when `stored` was made at another cost than 2^`costLog2` (or with other parameters). */
export function needsRehash(stored: string, costLog2: number): boolean {
  const [scheme, n, r, p] = stored.split("$");
  return (
    scheme !== "scrypt" ||
    Number(n) !== 2 ** costLog2 ||
    Number(r) !== BLOCK_SIZE ||
    Number(p) !== PARALLELISM
  );
}

/**
 * The password work of one instance under a cap (`PASSWORD_HASH_CONCURRENCY`): at most `concurrency` scrypt
 * computations at once. scrypt runs on libuv's thread pool (4 threads by default), which the instance's
 * other asynchronous work (compression, file reads, DNS look-ups) shares: a cap below its size keeps sign-in
 * floods from starving the API. A sign-in (`enter`) takes a free slot, or waits in a short queue
 * (`PASSWORD_HASH_QUEUE` places, so a burst of real sign-ins, a few tabs or an office arriving at nine, waits
 * a few hash times instead of being refused), or is refused at once when the queue is full: a flood never
 * queues more than `queue / concurrency` hash times of work. Staff's own work (creating a user) waits for a
 * slot with `acquire` whatever the queue holds. Slots go in order of arrival.
 */
export interface PasswordWork {
  /**
   * A slot for a sign-in: its release function, at once or after the attempts queued before it; `undefined`
   * at once when every slot is taken and the queue is full.
   */
  enter(): Promise<() => void> | undefined;
  /** Whether `enter` would refuse now (every slot taken, the queue full): lets a caller refuse before any work. */
  full(): boolean;
  /** Resolves with a slot's release function once one is free (first come, first served). */
  acquire(): Promise<() => void>;
  /** `hashPassword` in a slot (waiting for one). */
  hash(password: string, costLog2: number): Promise<string>;
}

/**
 * A `PasswordWork` allowing `concurrency` (>= 1) password computations at once, with at most `queue` (>= 0)
 * sign-ins waiting for a slot.
 */
export function createPasswordWork(concurrency: number, queue: number): PasswordWork {
  let busy = 0;
  const waiting: Array<() => void> = [];
  /** A release function for a taken slot; calling it again does nothing. */
  const slot = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      // The slot passes straight to the first waiter (`busy` stays as it is), else it is free again.
      const next = waiting.shift();
      if (next) next();
      else busy--;
    };
  };
  const wait = () => new Promise<() => void>((resolve) => waiting.push(() => resolve(slot())));
  const work: PasswordWork = {
    enter() {
      if (busy < concurrency) {
        busy++;
        return Promise.resolve(slot());
      }
      return waiting.length < queue ? wait() : undefined;
    },
    full: () => busy >= concurrency && waiting.length >= queue,
    acquire() {
      if (busy < concurrency) {
        busy++;
        return Promise.resolve(slot());
      }
      return wait();
    },
    async hash(password, costLog2) {
      const release = await work.acquire();
      try {
        return await hashPassword(password, costLog2);
      } finally {
        release();
      }
    },
  };
  return work;
}
