/**
 * The limiter's local cache of bans (docs/contract.md section 3 "Bans"): a banned key is answered 429 `key_banned`
 * without a store round trip until its ban ends, but the store is read again at least every 5 s, so that a ban
 * lifted on another instance stops applying here within 5 s (the revocation bound of docs/contract.md section 2).
 */

const RECHECK_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** keyId -> ban end (Unix ms) and when the store was last read for it. */
export class BanCache {
  private readonly bans = new Map<string, { until: number; checkedAt: number }>();

  /** The cached ban end of `keyId` when it is still running at `at` and was read from the store < 5 s ago. */
  fresh(keyId: string, at: number): number | undefined {
    const cached = this.bans.get(keyId);
    if (!cached) return undefined;
    if (cached.until <= at) {
      this.bans.delete(keyId);
      return undefined;
    }
    return at - cached.checkedAt < RECHECK_MS ? cached.until : undefined;
  }

  /** Records that the store said, at `at`, that `keyId` is banned until `until`. */
  set(keyId: string, until: number, at: number): void {
    if (this.bans.size >= MAX_ENTRIES) for (const [k, b] of this.bans) if (b.until <= at) this.bans.delete(k);
    this.bans.set(keyId, { until, checkedAt: at });
  }

  delete(keyId: string): void {
    this.bans.delete(keyId);
  }
}
