/**
 * The request log of consumer accounts (docs/contract.md section 7): every /v1 request made with a key of an
 * account, kept 7 days and at most the newest `REQUEST_LOG_PER_ACCOUNT` per account. The REST pipeline hands each
 * such request to the analytics recorder (memory only); the recorder's flush writes the batch in one statement
 * (`requestLogWriter`), and housekeeping purges by age and by count (`purgeRequestLog`). Members read their
 * account's entries (`createRequestLogService`), newest first, filtered and paged by a keyset cursor.
 */
import { AppError } from "@petstore/contracts";
import { Prisma, type PrismaClient, type QueryRows } from "@petstore/db";
import type { CoreDeps } from "../deps.ts";
import { DAY_MS } from "../utc-day.ts";
import type { Operation, RefusingWindow } from "./operation.ts";
import { redactTarget } from "./redact.ts";

/** How long entries are kept (ms). */
export const REQUEST_LOG_RETENTION_MS = 7 * DAY_MS;
/** The most entries kept per account, after every flush; beyond it the oldest go first. */
export const REQUEST_LOG_PER_ACCOUNT = 100_000;
/**
 * The most requests of one account one flush interval logs one by one; the account's further requests of the
 * interval are counted in aggregate rows. Each account has its own budget: one account's flood never costs
 * another an entry.
 */
export const REQUEST_LOG_ACCOUNT_ENTRIES = 10_000;
/**
 * The most refused requests (429 by a window or the ban) of one account one flush interval logs one by one; the
 * further ones are counted in aggregate rows (a refused request costs its client no quota, so it is not worth a row).
 */
export const REQUEST_LOG_ACCOUNT_REFUSALS = 100;
/** The longest path kept, in characters. */
export const REQUEST_LOG_PATH_LENGTH = 512;

/**
 * One row of the request log: one request of an account's key, or (`requests` > 1 or `firstAt` set) an aggregate
 * row counting the account's requests of one key, operation, status, error code and refusal between `firstAt`
 * and `at` that were not logged one by one (`method`, `path` and `requestId` are empty there).
 */
export interface RequestLogEntry {
  accountId: string;
  apiKeyId: string;
  keyPrefix: string;
  /** When it ended (an aggregate row: its last request), Unix ms. */
  at: number;
  method: string;
  /** Path and query as sent, redacted (redact.ts) and cut to `REQUEST_LOG_PATH_LENGTH`. */
  path: string;
  operation: Operation;
  status: number;
  errorCode: string | null;
  /** Latency, ms (an aggregate row: the mean). */
  durationMs: number;
  requestId: string;
  /** What the account's windows had left after it; null when the deployment limits nothing. */
  minuteRemaining: number | null;
  dayRemaining: number | null;
  refusedBy: RefusingWindow | "ban" | null;
  /** How many requests the row stands for: 1, or an aggregate row's count. */
  requests: number;
  /** An aggregate row's first request, Unix ms; null for a row of one request. */
  firstAt: number | null;
}

/** Entries as columns, one array per field: what a flush binds, and what the batch holds. */
export type RequestLogColumns = { [F in keyof RequestLogEntry]: RequestLogEntry[F][] };

const FIELDS = [
  "accountId",
  "apiKeyId",
  "keyPrefix",
  "at",
  "method",
  "path",
  "operation",
  "status",
  "errorCode",
  "durationMs",
  "requestId",
  "minuteRemaining",
  "dayRemaining",
  "refusedBy",
  "requests",
  "firstAt",
] as const satisfies readonly (keyof RequestLogEntry)[];

const emptyColumns = (): RequestLogColumns =>
  Object.fromEntries(FIELDS.map((f) => [f, []])) as unknown as RequestLogColumns;

/** Row `i` of `c` as an entry. */
const rowOf = (c: RequestLogColumns, i: number): RequestLogEntry =>
  Object.fromEntries(FIELDS.map((f) => [f, c[f][i]])) as unknown as RequestLogEntry;

/** What a request hands the batch: its own fields (the recorder's record). */
type RequestFields = Pick<RequestLogEntry, "at" | "operation" | "status" | "durationMs" | "requestId">;
/** What a request hands the batch: what the log adds (the REST hook's object). */
type LogFields = Pick<
  RequestLogEntry,
  "accountId" | "keyPrefix" | "method" | "path" | "errorCode" | "minuteRemaining" | "dayRemaining"
>;

/** An aggregate row being counted, with the sum of its latencies (ms). */
type Aggregate = RequestLogEntry & { durationSum: number };

/**
 * The rows of one flush interval, kept as columns: the values of a request live until the flush (seconds), and
 * arrays of values keep far fewer objects alive into the old generation than an object per request would. Each
 * account logs at most `REQUEST_LOG_ACCOUNT_ENTRIES` requests (of them at most `REQUEST_LOG_ACCOUNT_REFUSALS`
 * refused ones) one by one; its further requests are counted in aggregate rows, one per key, operation, status,
 * error code and refusal. So the batch holds at most that budget plus a few aggregate rows per account, and one
 * account's flood costs no other account anything.
 */
export class RequestLogBatch {
  private columns = emptyColumns();
  /** Requests logged one by one, and refused ones among them, by account. */
  private budgets = new Map<string, { entries: number; refusals: number }>();
  private aggregates = new Map<string, Aggregate>();
  /** Requests counted in aggregate rows instead of one by one, since the process started. */
  aggregated = 0;

  /** Rows held (entries and aggregate rows). */
  get size(): number {
    return this.columns.requestId.length + this.aggregates.size;
  }

  /**
   * Adds a request: the key's id, the request's own fields `request`, the window or ban that refused it, and what
   * the log adds, `log` (the recorder's objects as they are, so that logging allocates nothing per request). The
   * path is redacted (redact.ts) and cut here, for the requests logged one by one.
   */
  push(
    apiKeyId: string,
    request: RequestFields,
    refusedBy: RequestLogEntry["refusedBy"],
    log: LogFields,
  ): void {
    if (!this.admit(log.accountId, refusedBy)) {
      this.aggregated++;
      this.count({
        accountId: log.accountId,
        apiKeyId,
        keyPrefix: log.keyPrefix,
        at: request.at,
        method: "",
        path: "",
        operation: request.operation,
        status: request.status,
        errorCode: log.errorCode,
        durationMs: request.durationMs,
        requestId: "",
        minuteRemaining: log.minuteRemaining,
        dayRemaining: log.dayRemaining,
        refusedBy,
        requests: 1,
        firstAt: request.at,
      });
      return;
    }
    const path = redactTarget(log.path);
    const c = this.columns;
    c.accountId.push(log.accountId);
    c.apiKeyId.push(apiKeyId);
    c.keyPrefix.push(log.keyPrefix);
    c.at.push(request.at);
    c.method.push(log.method);
    c.path.push(path.length > REQUEST_LOG_PATH_LENGTH ? path.slice(0, REQUEST_LOG_PATH_LENGTH) : path);
    c.operation.push(request.operation);
    c.status.push(request.status);
    c.errorCode.push(log.errorCode);
    c.durationMs.push(request.durationMs);
    c.requestId.push(request.requestId);
    c.minuteRemaining.push(log.minuteRemaining);
    c.dayRemaining.push(log.dayRemaining);
    c.refusedBy.push(refusedBy);
    c.requests.push(1);
    c.firstAt.push(null);
  }

  /** Everything held (the entries, then the aggregate rows), emptying the batch. */
  take(): RequestLogColumns {
    const taken = this.columns;
    for (const a of this.aggregates.values()) {
      const { durationSum, ...row } = a;
      row.durationMs = durationSum / row.requests;
      for (const f of FIELDS) (taken[f] as unknown[]).push(row[f]);
    }
    this.columns = emptyColumns();
    this.budgets = new Map();
    this.aggregates = new Map();
    return taken;
  }

  /**
   * Puts back rows a failed write did not store, before the newer ones, within each account's budget: what no
   * longer fits is counted in aggregate rows, so a long outage holds no more than one interval's budget per account.
   */
  putBack(failed: RequestLogColumns): void {
    const newer = this.take();
    for (const c of [failed, newer])
      for (let i = 0; i < c.requestId.length; i++) {
        const row = rowOf(c, i);
        if (row.firstAt === null && this.admit(row.accountId, row.refusedBy))
          for (const f of FIELDS) (this.columns[f] as unknown[]).push(row[f]);
        else {
          if (row.firstAt === null) {
            this.aggregated++;
            row.firstAt = row.at;
          }
          this.count(row);
        }
      }
  }

  /** Whether the account's budget admits one more request logged one by one (and counts it when it does). */
  private admit(accountId: string, refusedBy: RequestLogEntry["refusedBy"]): boolean {
    let budget = this.budgets.get(accountId);
    if (!budget) {
      budget = { entries: 0, refusals: 0 };
      this.budgets.set(accountId, budget);
    }
    if (budget.entries >= REQUEST_LOG_ACCOUNT_ENTRIES) return false;
    if (refusedBy !== null) {
      if (budget.refusals >= REQUEST_LOG_ACCOUNT_REFUSALS) return false;
      budget.refusals++;
    }
    budget.entries++;
    return true;
  }

  /** Adds `row` (a request, or an aggregate row put back) to its aggregate row. */
  private count(row: RequestLogEntry): void {
    const id = `${row.apiKeyId}|${row.operation}|${row.status}|${row.errorCode}|${row.refusedBy}`;
    const first = row.firstAt ?? row.at;
    const cur = this.aggregates.get(id);
    if (!cur) {
      this.aggregates.set(id, {
        ...row,
        method: "",
        path: "",
        requestId: "",
        firstAt: first,
        durationSum: row.durationMs * row.requests,
      });
      return;
    }
    cur.requests += row.requests;
    cur.durationSum += row.durationMs * row.requests;
    if (first < (cur.firstAt ?? first)) cur.firstAt = first;
    if (row.at >= cur.at) {
      cur.at = row.at;
      cur.minuteRemaining = row.minuteRemaining;
      cur.dayRemaining = row.dayRemaining;
    }
  }
}

/**
 * `c` as one JSON object, a column per turn of the event loop: one `JSON.stringify` of a flush's 12,500 rows holds
 * it 30-60 ms (docs/performance.md), a column a sixteenth of that.
 */
async function columnsJson(c: RequestLogColumns): Promise<string> {
  const parts: string[] = [];
  for (const f of FIELDS) {
    parts.push(`"${f}":${JSON.stringify(c[f])}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return `{${parts.join(",")}}`;
}

/**
 * The recorder's writer of log rows: ONE `INSERT ... SELECT` per flush, on the direct path (db's `queryRows`:
 * node-postgres on PostgreSQL), which also adds the rows to each account's tally (`RequestLogTally`); then, only
 * when an account's tally passed `REQUEST_LOG_PER_ACCOUNT`, one statement deletes those accounts' oldest rows
 * beyond it. The columns travel as one JSON parameter, which PostgreSQL turns back into arrays (`json_to_record`)
 * and rows (`unnest`): `JSON.stringify` is native code (run a column at a time, `columnsJson`), while binding
 * sixteen arrays of many values has node-postgres escape every value in JavaScript on the API's event loop.
 * @param onTrimFailed told when the trim fails (the rows are written then, and the flush succeeds: retrying it
 *   would write them twice; the account's next flush or housekeeping trims)
 * @throws the database error of the insert; nothing is written then.
 */
export function requestLogWriter(queryRows: QueryRows, onTrimFailed: (error: unknown) => void = () => {}) {
  return async (c: RequestLogColumns): Promise<void> => {
    if (c.requestId.length === 0) return;
    const tallies = await queryRows<{ accountId: string; rows: number }>(Prisma.sql`
      WITH inserted AS (
        INSERT INTO "RequestLogEntry" ("accountId", "apiKeyId", "keyPrefix", "at", "method", "path", "operation",
          "status", "errorCode", "durationMs", "requestId", "minuteRemaining", "dayRemaining", "refusedBy",
          "requests", "firstAt")
        SELECT b.a::uuid, b.k::uuid, b.p, to_timestamp(b.t / 1000.0), b.m, b.pa, b.o, b.s, b.e, b.d, b.r, b.mr,
          b.dr, b.rb, b.n, to_timestamp(b.ft / 1000.0)
        FROM json_to_record(${await columnsJson(c)}::json) AS c("accountId" text[], "apiKeyId" text[],
            "keyPrefix" text[], "at" float8[], "method" text[], "path" text[], "operation" text[], "status" int[],
            "errorCode" text[], "durationMs" real[], "requestId" text[], "minuteRemaining" int[],
            "dayRemaining" int[], "refusedBy" text[], "requests" int[], "firstAt" float8[]),
          unnest(c."accountId", c."apiKeyId", c."keyPrefix", c."at", c."method", c."path", c."operation",
            c."status", c."errorCode", c."durationMs", c."requestId", c."minuteRemaining", c."dayRemaining",
            c."refusedBy", c."requests", c."firstAt") AS b(a, k, p, t, m, pa, o, s, e, d, r, mr, dr, rb, n, ft)
        RETURNING "accountId"
      )
      INSERT INTO "RequestLogTally" ("accountId", "rows")
      SELECT "accountId", count(*)::int FROM inserted GROUP BY "accountId" ORDER BY "accountId"
      ON CONFLICT ("accountId") DO UPDATE SET "rows" = "RequestLogTally"."rows" + EXCLUDED."rows"
      RETURNING "accountId"::text AS "accountId", "rows"`);
    const over = tallies.filter((t) => t.rows > REQUEST_LOG_PER_ACCOUNT).map((t) => t.accountId);
    if (over.length > 0) await queryRows(trimStatement(over)).catch(onTrimFailed);
  };
}

/**
 * Deletes the oldest rows of `accountIds` beyond the newest `REQUEST_LOG_PER_ACCOUNT` (by their tallies, locked
 * so that two instances never trim the same excess twice) and takes them off the tallies. Each account's oldest
 * rows are read from its (at, id) index, as many as its excess.
 */
function trimStatement(accountIds: string[]): Prisma.Sql {
  return Prisma.sql`
    WITH over AS (
      SELECT "accountId", "rows" - ${REQUEST_LOG_PER_ACCOUNT}::int AS excess FROM "RequestLogTally"
      WHERE "accountId" = ANY(${accountIds}::uuid[]) AND "rows" > ${REQUEST_LOG_PER_ACCOUNT}::int
      ORDER BY "accountId" FOR UPDATE
    ),
    victims AS (
      SELECT v."id" FROM over CROSS JOIN LATERAL (
        SELECT e."id" FROM "RequestLogEntry" e WHERE e."accountId" = over."accountId"
        ORDER BY e."at", e."id" LIMIT over.excess
      ) v
    ),
    gone AS (
      DELETE FROM "RequestLogEntry" e USING victims WHERE e."id" = victims."id" RETURNING e."accountId"
    ),
    counted AS (SELECT "accountId", count(*)::int AS n FROM gone GROUP BY "accountId")
    UPDATE "RequestLogTally" t SET "rows" = t."rows" - counted.n FROM counted
    WHERE t."accountId" = counted."accountId"
    RETURNING t."accountId"::text AS "accountId"`;
}

/**
 * Housekeeping's purge of the request log, account by account, with the account's tally locked (as a flush's trim
 * locks it, before any entry, so the two never wait for each other in opposite orders): its entries older than 7
 * days are deleted, its rows counted, those beyond the newest `REQUEST_LOG_PER_ACCOUNT` deleted by range (the
 * boundary found by an index-only walk of the account's (at, id) index), and the tally set to what is left, so a
 * tally that drifted (rows deleted by hand) is right again. Entries of accounts that no longer exist older than
 * 7 days go last. The flushes keep the bound between two rounds (`requestLogWriter`).
 * @returns how many entries were deleted.
 */
export async function purgeRequestLog(prisma: PrismaClient, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REQUEST_LOG_RETENTION_MS);
  let deleted = 0;
  const accounts = await prisma.account.findMany({ select: { id: true } });
  for (const { id: accountId } of accounts) {
    deleted += await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`
        INSERT INTO "RequestLogTally" ("accountId", "rows") VALUES (${accountId}::uuid, 0)
        ON CONFLICT ("accountId") DO NOTHING`;
      await tx.$queryRaw`SELECT 1 FROM "RequestLogTally" WHERE "accountId" = ${accountId}::uuid FOR UPDATE`;
      let gone = await tx.$executeRaw`
        DELETE FROM "RequestLogEntry" WHERE "accountId" = ${accountId}::uuid AND "at" < ${cutoff}`;
      const [count] = await tx.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM "RequestLogEntry" WHERE "accountId" = ${accountId}::uuid`;
      let rows = count?.n ?? 0;
      if (rows > REQUEST_LOG_PER_ACCOUNT) {
        const [boundary] = await tx.$queryRaw<{ at: Date; id: bigint }[]>`
          SELECT "at", "id" FROM "RequestLogEntry" WHERE "accountId" = ${accountId}::uuid
          ORDER BY "at" DESC, "id" DESC OFFSET ${REQUEST_LOG_PER_ACCOUNT} LIMIT 1`;
        if (boundary) {
          const beyond = await tx.$executeRaw`
            DELETE FROM "RequestLogEntry" WHERE "accountId" = ${accountId}::uuid
              AND ("at" < ${boundary.at} OR ("at" = ${boundary.at} AND "id" <= ${boundary.id}))`;
          rows -= beyond;
          gone += beyond;
        }
      }
      await tx.$executeRaw`
        UPDATE "RequestLogTally" SET "rows" = ${rows}::int WHERE "accountId" = ${accountId}::uuid`;
      return gone;
    });
  }
  deleted += await prisma.$executeRaw`
    DELETE FROM "RequestLogEntry" e WHERE e."at" < ${cutoff}
      AND NOT EXISTS (SELECT 1 FROM "Account" a WHERE a."id" = e."accountId")`;
  return deleted;
}

/** What the portal's request log asks for. */
export interface RequestLogQuery {
  apiKeyId?: string | undefined;
  /** A status (e.g. 429) or a class (`2xx`, `4xx`, `5xx`). */
  status?: number | "2xx" | "4xx" | "5xx" | undefined;
  operation?: Operation | undefined;
  /** ISO instants: entries at or after `from`, before `to`. */
  from?: string | undefined;
  to?: string | undefined;
  /** The `X-Request-Id` the client holds: an exact match. */
  requestId?: string | undefined;
  /** The cursor of the previous page's last entry. */
  cursor?: string | undefined;
  limit: number;
}

/** One entry as the portal shows it. */
export interface RequestLogView {
  id: string;
  at: string;
  apiKeyId: string;
  keyPrefix: string;
  method: string;
  path: string;
  operation: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  requestId: string;
  minuteRemaining: number | null;
  dayRemaining: number | null;
  refusedBy: string | null;
  /** How many requests the row stands for: 1, or an aggregate row's count (then `method`, `path`, `requestId` are empty). */
  requests: number;
  /** An aggregate row's first request (ISO instant); null for a row of one request. */
  firstAt: string | null;
}

const encodeCursor = (at: Date, id: bigint) => Buffer.from(`${at.toISOString()}|${id}`).toString("base64url");

function decodeCursor(cursor: string): { at: Date; id: bigint } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const date = new Date(at ?? "");
  if (!id || !/^\d{1,19}$/.test(id) || Number.isNaN(date.getTime()))
    throw new AppError("validation_failed", "The cursor is not valid.", [
      { path: "cursor", message: "is not valid" },
    ]);
  return { at: date, id: BigInt(id) };
}

export function createRequestLogService({ prisma }: Pick<CoreDeps, "prisma">) {
  return {
    /**
     * One page of account `accountId`'s entries, newest first, matching `query`.
     * @returns the entries and the cursor of the next page (null on the last).
     * @throws AppError validation_failed for a malformed cursor.
     */
    async search(
      accountId: string,
      query: RequestLogQuery,
    ): Promise<{ entries: RequestLogView[]; nextCursor: string | null }> {
      const where: Prisma.RequestLogEntryWhereInput = { accountId };
      if (query.apiKeyId) where.apiKeyId = query.apiKeyId;
      if (query.operation) where.operation = query.operation;
      if (query.requestId) where.requestId = query.requestId;
      if (typeof query.status === "number") where.status = query.status;
      else if (query.status) {
        const low = Number(query.status[0]) * 100;
        where.status = { gte: low, lt: low + 100 };
      }
      const at: Prisma.DateTimeFilter = {};
      if (query.from) at.gte = new Date(query.from);
      if (query.to) at.lt = new Date(query.to);
      if (query.from || query.to) where.at = at;
      const after = query.cursor ? decodeCursor(query.cursor) : undefined;
      const rows = await prisma.requestLogEntry.findMany({
        where: after
          ? { AND: [where, { OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }] }] }
          : where,
        orderBy: [{ at: "desc" }, { id: "desc" }],
        take: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        entries: page.map((r) => ({
          id: r.id.toString(),
          at: r.at.toISOString(),
          apiKeyId: r.apiKeyId,
          keyPrefix: r.keyPrefix,
          method: r.method,
          path: r.path,
          operation: r.operation,
          status: r.status,
          errorCode: r.errorCode,
          durationMs: r.durationMs,
          requestId: r.requestId,
          minuteRemaining: r.minuteRemaining,
          dayRemaining: r.dayRemaining,
          refusedBy: r.refusedBy,
          requests: r.requests,
          firstAt: r.firstAt?.toISOString() ?? null,
        })),
        nextCursor:
          rows.length > query.limit && last ? encodeCursor(new Date(last.at), BigInt(last.id)) : null,
      };
    },
  };
}

export type RequestLogService = ReturnType<typeof createRequestLogService>;
