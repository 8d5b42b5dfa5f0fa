/**
 * Sessions this process has seen valid lately, answered from memory: the app's server uses it to tell a
 * signed-in dashboard user from an anonymous client before a request reaches the dashboard, so that anonymous
 * traffic can be limited per client address without a database look-up (docs/contract.md section 4). It decides
 * only that limit, never access: every request still resolves its session in the database.
 */
import { BoundedMap } from "../bounded-map.ts";

const MAX_ENTRIES = 10_000;

/** Token hash -> when the session ends at the latest (Unix ms). */
export function createKnownSessions() {
  const sessions = new BoundedMap<string, number>(MAX_ENTRIES);
  return {
    remember(tokenHash: string, expiresAt: Date): void {
      sessions.set(tokenHash, expiresAt.getTime());
    },
    forget(tokenHash: string): void {
      sessions.delete(tokenHash);
    },
    /** Whether `tokenHash` belongs to a session that was valid when last seen and has not expired since. */
    has(tokenHash: string, nowMs: number): boolean {
      const until = sessions.get(tokenHash);
      return until !== undefined && until > nowMs;
    },
  };
}
