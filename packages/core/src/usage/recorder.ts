/**
 * Request analytics counted in memory (docs/contract.md section 4, "Usage and analytics"): every /v1 request
 * adds one to its (API key, UTC hour, operation, outcome) row and one to that row's latency bucket, and, for a
 * request with a valid key, one entry to the key's recent requests. Nothing is written on the request path:
 * `flush()` (every 5 s, and on `close()`) hands all rows to the database writer in ONE statement and each key's
 * newest recent entries (as many as the store keeps) to the recent-requests store in one round trip. Rows that fail to write are merged back and
 * retried on the next flush; recent entries that fail are dropped (they are a bounded, best-effort log).
 */
import type { Logger } from "pino";
import type { DependencyStatus } from "../dependency-status.ts";
import { isDatabaseUnavailable } from "../error-translator.ts";
import type { RateLimitDecision } from "../ratelimit/types.ts";
import { addHistogram, bucketOf, emptyHistogram } from "./histogram.ts";
import type { Operation, RefusingWindow } from "./operation.ts";
import { RequestLogBatch, type RequestLogColumns, type RequestLogEntry } from "./request-log.ts";

export type { Operation, RefusingWindow } from "./operation.ts";

/** How it ended: status class, with the two kinds of 429 told apart. */
export type Outcome = "2xx" | "4xx" | "rate_limited" | "key_banned" | "5xx";

/**
 * The outcome as a UsageHour row stores it: a `rate_limited` request whose refusing window is known is stored as
 * `rate_limited_minute` or `rate_limited_day`, so one row per window keeps the (key, hour, operation, outcome) key
 * and every existing figure reads the two as `rate_limited` (`reportedOutcome`). A stored `rate_limited` is a 429
 * whose window was not recorded (rows written before windows were, or a 429 the limiter did not decide).
 */
export type StoredOutcome = Outcome | "rate_limited_minute" | "rate_limited_day" | "rate_limited_month";

/**
 * The stored outcome of a request.
 * @param outcome the reported class
 * @param window the refusing window, for `rate_limited` only (ignored otherwise)
 */
export function storedOutcome(outcome: Outcome, window: RefusingWindow | undefined): StoredOutcome {
  return outcome === "rate_limited" && window ? `rate_limited_${window}` : outcome;
}

/**
 * The window that refused a request, read from the limiter's decision: on a `rate_limited` or `quota_exceeded`
 * (the month) denial `reported` is the denying window (when several deny, the one that resets last). Undefined
 * when the decision admitted the request or is a ban.
 */
export function refusingWindow(
  decision: Pick<RateLimitDecision, "allowed" | "code" | "reported"> | undefined,
): RefusingWindow | undefined {
  return decision &&
    !decision.allowed &&
    (decision.code === "rate_limited" || decision.code === "quota_exceeded")
    ? decision.reported?.name
    : undefined;
}

/**
 * The reported class of a stored outcome (`rate_limited_minute`/`_day` read as `rate_limited`); undefined for
 * a string that is no outcome.
 */
export function reportedOutcome(stored: string): Outcome | undefined {
  if (stored === "rate_limited_minute" || stored === "rate_limited_day" || stored === "rate_limited_month")
    return "rate_limited";
  return (OUTCOMES as readonly string[]).includes(stored) ? (stored as Outcome) : undefined;
}

export const OPERATIONS: readonly Operation[] = [
  "listPets",
  "createPet",
  "getPet",
  "updatePet",
  "listCategories",
  "getMe",
  "createOrder",
  "listOrders",
  "getOrder",
  "completeOrder",
  "cancelOrder",
  "getInventory",
  "unauthenticated",
  "other",
];
export const OUTCOMES: readonly Outcome[] = ["2xx", "4xx", "rate_limited", "key_banned", "5xx"];

/** Key id under which requests without a valid API key are counted. */
export const NO_KEY = "00000000-0000-0000-0000-000000000000";

/** One finished /v1 request, as the REST pipeline reports it. */
export interface RequestRecord {
  /** The caller's key id; undefined without a valid key. */
  keyId: string | undefined;
  operation: Operation;
  outcome: Outcome;
  /** For a `rate_limited` outcome, the window that refused it (undefined when the limiter did not decide it). */
  window?: RefusingWindow;
  /** HTTP status sent. */
  status: number;
  /** Request in to response out, ms. */
  durationMs: number;
  /** When it ended, Unix ms. */
  at: number;
  /** Client address as the server believes it (client-ip.ts), or "" when unknown. */
  clientIp: string;
  requestId: string;
  /** For a request with a key of a consumer account: what its request log keeps besides the above (request-log.ts). */
  log?: Pick<
    RequestLogEntry,
    "accountId" | "keyPrefix" | "method" | "path" | "errorCode" | "minuteRemaining" | "dayRemaining"
  >;
}

/** One analytics row: `requests` and `latency` (bucket counts) to add to the stored row. */
export interface UsageHourRow {
  apiKeyId: string;
  /** Start of the UTC hour, Unix ms. */
  hour: number;
  operation: Operation;
  outcome: StoredOutcome;
  requests: number;
  latency: number[];
}

/** One entry of a key's recent requests (newest first when listed). */
export interface RecentRequest {
  keyId: string;
  /** ISO 8601 time the request ended. */
  at: string;
  operation: Operation;
  status: number;
  /** What refused a 429: its window, or `ban`; absent for other statuses and a 429 whose cause is unknown. */
  refusedBy?: RefusingWindow | "ban";
  durationMs: number;
  clientIp: string;
  requestId: string;
}

/** Where recent requests are kept: a Redis stream per key, or a ring buffer in this process. */
export interface RecentRequestStore {
  /** Appends entries (oldest first), keeping only the newest `RECENT_LIMIT` per key. */
  append(entries: RecentRequest[]): Promise<void>;
  /** The newest `limit` entries of a key, newest first. */
  list(keyId: string, limit: number): Promise<RecentRequest[]>;
  close(): Promise<void>;
}

/** How many recent requests are kept per key. */
export const RECENT_LIMIT = 100;

/** Keys whose recent entries one flush interval holds at most; beyond it the oldest key's entries are dropped. */
const MAX_RECENT_KEYS = 1_000;

/**
 * Each key's recent entries between two flushes, at most `RECENT_LIMIT` (plus a little slack, trimmed in batches)
 * per key: the store keeps no more anyway, and a busy key's entries of one interval would otherwise live long
 * enough to be promoted and collected as old objects, and cost the flush a stream command each.
 */
class RecentBatch {
  private byKey = new Map<string, RecentRequest[]>();

  push(entry: RecentRequest): void {
    let list = this.byKey.get(entry.keyId);
    if (!list) {
      if (this.byKey.size >= MAX_RECENT_KEYS) this.byKey.delete(this.byKey.keys().next().value as string);
      list = [];
      this.byKey.set(entry.keyId, list);
    }
    list.push(entry);
    if (list.length >= RECENT_LIMIT + 64) list.splice(0, list.length - RECENT_LIMIT);
  }

  /** The newest `RECENT_LIMIT` entries of `keyId`, oldest first. */
  of(keyId: string): RecentRequest[] {
    return (this.byKey.get(keyId) ?? []).slice(-RECENT_LIMIT);
  }

  /** Every key's newest `RECENT_LIMIT` entries (each key's oldest first), emptying the batch. */
  take(): RecentRequest[] {
    const entries = [...this.byKey.values()].flatMap((list) => list.slice(-RECENT_LIMIT));
    this.byKey = new Map();
    return entries;
  }
}

const HOUR_MS = 3_600_000;

/** The `refusedBy` of a recent entry, when the request was refused and its cause is known. */
function refusal(r: RequestRecord): Pick<RecentRequest, "refusedBy"> {
  if (r.outcome === "key_banned") return { refusedBy: "ban" };
  return r.outcome === "rate_limited" && r.window ? { refusedBy: r.window } : {};
}

export interface AnalyticsRecorderOptions {
  /** Adds rows to the UsageHour table in one statement; rejecting keeps them for the next flush. */
  write: (rows: UsageHourRow[]) => Promise<void>;
  recent: RecentRequestStore;
  logger: Pick<Logger, "error" | "warn">;
  /** Flush period, ms (default 5 000). */
  intervalMs?: number;
  /** Runs after each flush's database write (e.g. the retention purge, at most hourly). */
  afterFlush?: () => void;
  /** Inserts the accounts' request-log entries in one statement (request-log.ts); rejecting keeps them. */
  writeLog?: (entries: RequestLogColumns) => Promise<void>;
  /**
   * Where an unreachable database is reported instead of a log line per failed flush (one line when it goes down,
   * one when a flush reaches it again; dependency-status.ts).
   */
  dependencies?: Pick<DependencyStatus, "down" | "up">;
}

/** Counts requests in memory and writes them in batches; see the module comment. */
export class AnalyticsRecorder {
  private rows = new Map<string, UsageHourRow>();
  private inFlight: UsageHourRow[] = [];
  private readonly recentBatch = new RecentBatch();
  /** The accounts' request-log rows since the last flush, within each account's budget (request-log.ts). */
  readonly logBatch = new RequestLogBatch();
  private running: Promise<void> | null = null;
  private flushesBegun = 0;
  private readonly timer: NodeJS.Timeout;
  private lastRecentWarning = 0;
  /** Flushes that failed to write rows (they are retried). */
  flushFailures = 0;

  /** Where recent requests are kept (read by the usage service). */
  readonly recentStore: RecentRequestStore;

  constructor(private readonly opts: AnalyticsRecorderOptions) {
    this.recentStore = opts.recent;
    this.timer = setInterval(() => void this.flush(), opts.intervalMs ?? 5_000);
    this.timer.unref();
  }

  /** Counts one request (memory only; never throws, never waits). */
  record(r: RequestRecord): void {
    const apiKeyId = r.keyId ?? NO_KEY;
    const hour = r.at - (r.at % HOUR_MS);
    const outcome = storedOutcome(r.outcome, r.window);
    const id = `${apiKeyId}|${hour}|${r.operation}|${outcome}`;
    let row = this.rows.get(id);
    if (!row) {
      row = {
        apiKeyId,
        hour,
        operation: r.operation,
        outcome,
        requests: 0,
        latency: emptyHistogram(),
      };
      this.rows.set(id, row);
    }
    row.requests++;
    const bucket = bucketOf(r.durationMs);
    row.latency[bucket] = (row.latency[bucket] ?? 0) + 1;
    if (r.keyId !== undefined) {
      const refused = refusal(r);
      this.recentBatch.push({
        keyId: r.keyId,
        at: new Date(r.at).toISOString(),
        operation: r.operation,
        status: r.status,
        ...refused,
        durationMs: Math.round(r.durationMs * 10) / 10,
        clientIp: r.clientIp,
        requestId: r.requestId,
      });
      if (r.log) this.logBatch.push(r.keyId, r, refused.refusedBy ?? null, r.log);
    }
  }

  /** Rows counted here and not yet stored (including a flush under way), for current figures. */
  pendingRows(): UsageHourRow[] {
    return [...this.inFlight, ...this.rows.values()];
  }

  /** Flushes begun so far: a read of pending rows and stored ones is consistent when this did not change. */
  flushCount(): number {
    return this.flushesBegun;
  }

  /** Resolves when no flush is under way (a flush never rejects). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Recent entries of `keyId` not yet handed to the store, oldest first. */
  pendingRecent(keyId: string): RecentRequest[] {
    return this.recentBatch.of(keyId);
  }

  /** Forgets this instance's unflushed rows of `keyId` from `since` (Unix ms) on (usage reset). */
  dropPending(keyId: string, since: number): void {
    for (const [id, row] of this.rows) if (row.apiKeyId === keyId && row.hour >= since) this.rows.delete(id);
  }

  /** Writes everything counted so far (one call at a time; concurrent callers wait). Never throws. */
  flush(): Promise<void> {
    if (this.running) return this.running.then(() => this.flush());
    const recent = this.recentBatch.take();
    const logEntries = this.opts.writeLog && this.logBatch.size > 0 ? this.logBatch.take() : undefined;
    if (this.rows.size === 0 && recent.length === 0 && !logEntries) return Promise.resolve();
    const batch = [...this.rows.values()];
    this.rows = new Map();
    this.inFlight = batch;
    this.flushesBegun++;
    this.running = (async () => {
      const [rows, log, requestLog] = await Promise.allSettled([
        batch.length ? this.opts.write(batch) : Promise.resolve(),
        recent.length ? this.opts.recent.append(recent) : Promise.resolve(),
        logEntries && this.opts.writeLog ? this.opts.writeLog(logEntries) : Promise.resolve(),
      ]);
      if (requestLog.status === "rejected") {
        if (!this.reportedUnavailable(requestLog.reason))
          this.opts.logger.error(
            { err: requestLog.reason, entries: logEntries?.requestId.length },
            "request log flush failed; will retry",
          );
        if (logEntries) this.logBatch.putBack(logEntries);
      }
      if (rows.status === "rejected") {
        this.flushFailures++;
        if (!this.reportedUnavailable(rows.reason))
          this.opts.logger.error(
            { err: rows.reason, rows: batch.length },
            "analytics flush failed; will retry",
          );
        for (const row of batch) this.mergeBack(row);
      } else if (batch.length) this.opts.dependencies?.up("database");
      if (log.status === "rejected" && Date.now() - this.lastRecentWarning >= 60_000) {
        this.lastRecentWarning = Date.now();
        this.opts.logger.warn(
          { err: log.reason, entries: recent.length },
          "recent requests not stored (logged at most once a minute)",
        );
      }
      this.inFlight = [];
      this.running = null;
      if (rows.status === "fulfilled") this.opts.afterFlush?.();
    })();
    return this.running;
  }

  /** Stops the timer and flushes what is left (call on shutdown, before closing the database). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Reports `error` as the database being down when it says so (no line of its own then). */
  private reportedUnavailable(error: unknown): boolean {
    if (!this.opts.dependencies || !isDatabaseUnavailable(error)) return false;
    this.opts.dependencies.down("database", error);
    return true;
  }

  private mergeBack(row: UsageHourRow): void {
    const id = `${row.apiKeyId}|${row.hour}|${row.operation}|${row.outcome}`;
    const cur = this.rows.get(id);
    if (!cur) this.rows.set(id, row);
    else {
      cur.requests += row.requests;
      addHistogram(cur.latency, row.latency);
    }
  }
}
