/**
 * Sessions this process has seen valid lately, answered from memory: the app's server uses it to tell a
 * signed-in dashboard user from an anonymous client before a request reaches the dashboard, so that anonymous
 * traffic can be limited per client address without a database look-up (docs/contract.md section 4). It decides
 * only that limit, never access: every request still resolves its session in the database.
 *
 * An entry is trusted for KNOWN_SESSION_TTL_MS after the session was last read valid, the bound within which a
 * revoked API key stops working on every instance (api-keys/verifier.ts): a session ended on another instance
 * (signed out, ended, its user deactivated) is budgeted like an anonymous caller here within 5 s. An older entry
 * still says the session was valid once: the caller reads it again (`recheck`) instead of spending its client
 * address's budget, so an idle user is never locked out by a flood from their address.
 */
import { LRUCache } from "lru-cache";
import { KEY_CACHE_TTL_MS } from "../api-keys/verifier.ts";

const MAX_ENTRIES = 10_000;

/** How long a session read valid is trusted from memory (ms): below the 5 s revocation bound. */
export const KNOWN_SESSION_TTL_MS = KEY_CACHE_TTL_MS;

/** What memory says of a token hash: valid lately, valid longer ago (read it again), or not known. */
export type KnownState = "known" | "recheck" | "unknown";

/** Token hash -> when the session ends at the latest and when it was last read valid (Unix ms). */
export function createKnownSessions() {
  // No TTL of the cache's own: an entry older than KNOWN_SESSION_TTL_MS still answers `recheck`.
  const sessions = new LRUCache<string, { until: number; checkedAt: number }>({ max: MAX_ENTRIES });
  return {
    /** Records that the session of `tokenHash`, ending at `expiresAt` at the latest, was read valid at `nowMs`. */
    remember(tokenHash: string, expiresAt: Date, nowMs: number): void {
      sessions.set(tokenHash, { until: expiresAt.getTime(), checkedAt: nowMs });
    },
    forget(tokenHash: string): void {
      sessions.delete(tokenHash);
    },
    /**
     * `known` when `tokenHash`'s session was read valid less than KNOWN_SESSION_TTL_MS before `nowMs` and has not
     * expired since; `recheck` when it was read valid longer ago and has not expired; else `unknown`.
     */
    state(tokenHash: string, nowMs: number): KnownState {
      const entry = sessions.get(tokenHash);
      if (entry === undefined) return "unknown";
      if (entry.until <= nowMs) {
        sessions.delete(tokenHash);
        return "unknown";
      }
      return nowMs - entry.checkedAt < KNOWN_SESSION_TTL_MS ? "known" : "recheck";
    },
  };
}
