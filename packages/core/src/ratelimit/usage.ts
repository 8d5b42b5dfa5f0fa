/**
 * Per-key, per-UTC-day usage counters (docs/contract.md section 4 "Usage per key": requests, 429s, bans, calls to the
 * deprecated getPet), accumulated in memory and written in batches, never one database write per request.
 */
import { utcDayStart } from "./time.ts";
import type { RateLimitLogger, UsageCounts, UsageRow } from "./types.ts";

export type UsageField = keyof UsageCounts;

export interface UsageRecorderOptions {
  /** Writes rows (increments) to the ApiKeyUsage table; rejecting keeps the rows for the next attempt. */
  flush?: (rows: UsageRow[]) => Promise<void>;
  /** Flush period in ms. */
  intervalMs: number;
  logger: RateLimitLogger;
  now: () => number;
  onFlushFailure: () => void;
}

const zero = (): UsageCounts => ({ requests: 0, rateLimited: 0, bans: 0, deprecatedGet: 0 });

/**
 * Accumulates counters and flushes them every `intervalMs` and on `close()`. Without a `flush` callback only
 * today's counters are kept (older days are dropped on each tick), so memory stays bounded.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageRow>();
  private running: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly opts: UsageRecorderOptions) {
    this.timer = setInterval(() => void this.flush(), opts.intervalMs);
    this.timer.unref();
  }

  /** Adds `n` to `field` of `keyId` for the current UTC day. */
  add(keyId: string, field: UsageField, n = 1): void {
    const day = utcDayStart(this.opts.now());
    const id = `${day}|${keyId}`;
    let row = this.pending.get(id);
    if (!row) {
      row = { apiKeyId: keyId, day: new Date(day), ...zero() };
      this.pending.set(id, row);
    }
    row[field] += n;
  }

  /** Today's not yet flushed counters of `keyId` (zeros when none). */
  today(keyId: string): UsageCounts {
    const row = this.pending.get(`${utcDayStart(this.opts.now())}|${keyId}`);
    return row
      ? {
          requests: row.requests,
          rateLimited: row.rateLimited,
          bans: row.bans,
          deprecatedGet: row.deprecatedGet,
        }
      : zero();
  }

  /** Hands all pending rows to the callback (one call at a time); failed rows are merged back. Never throws. */
  flush(): Promise<void> {
    if (this.running) return this.running.then(() => this.flush());
    if (!this.opts.flush) {
      const today = utcDayStart(this.opts.now());
      for (const [id, row] of this.pending) if (row.day.getTime() < today) this.pending.delete(id);
      return Promise.resolve();
    }
    if (this.pending.size === 0) return Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    const write = this.opts.flush;
    this.running = (async () => {
      try {
        await write([...batch.values()]);
      } catch (err) {
        this.opts.onFlushFailure();
        this.opts.logger.error({ err, rows: batch.size }, "rate-limit usage flush failed; will retry");
        for (const [id, row] of batch) {
          const cur = this.pending.get(id);
          if (!cur) this.pending.set(id, row);
          else
            for (const f of ["requests", "rateLimited", "bans", "deprecatedGet"] as const) cur[f] += row[f];
        }
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops the timer and flushes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
