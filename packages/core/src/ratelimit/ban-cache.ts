/**
 * The limiter's local knowledge of bans (docs/contract.md section 3 "Rate limits"), so that most checks need no ban
 * read from the store:
 * - a running ban is answered 429 `key_banned` without a store round trip until it ends, but the store is read
 *   again at least every 5 s, so that a ban lifted on another instance stops applying here within 5 s (the
 *   revocation bound of docs/contract.md section 2);
 * - a key the store said is not banned is not asked again for 1 s. A ban always starts while the key's windows
 *   are used up, and while they are, every instance's DENY script reports it, so it applies everywhere at once;
 *   only a ban still running after the key's window turns can go unseen here, for at most that second.
 */

const RECHECK_MS = 5_000;
const CLEAR_RECHECK_MS = 1_000;
const MAX_ENTRIES = 10_000;

/** What the cache knows of a key: the end of its running ban (Unix ms), `clear`, or nothing (ask the store). */
export type KnownBan = number | "clear" | undefined;

/** keyId -> ban end (Unix ms; 0: not banned) and when the store was last read for it. */
export class BanCache {
  private readonly bans = new Map<string, { until: number; checkedAt: number }>();

  /** What is known of `keyId` at `at` from a store read recent enough to trust. */
  known(keyId: string, at: number): KnownBan {
    const cached = this.bans.get(keyId);
    if (!cached) return undefined;
    const age = at - cached.checkedAt;
    if (cached.until === 0) return age < CLEAR_RECHECK_MS ? "clear" : undefined;
    if (cached.until <= at) {
      this.bans.delete(keyId);
      return undefined;
    }
    return age < RECHECK_MS ? cached.until : undefined;
  }

  /** Records that the store said, at `at`, that `keyId` is banned until `until` (0: not banned). */
  set(keyId: string, until: number, at: number): void {
    if (this.bans.size >= MAX_ENTRIES) {
      for (const [k, b] of this.bans) {
        if (b.until === 0 ? at - b.checkedAt >= CLEAR_RECHECK_MS : b.until <= at) this.bans.delete(k);
      }
      if (this.bans.size >= MAX_ENTRIES) this.bans.clear();
    }
    this.bans.set(keyId, { until, checkedAt: at });
  }

  delete(keyId: string): void {
    this.bans.delete(keyId);
  }
}
