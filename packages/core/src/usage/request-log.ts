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
import type { Operation, RefusingWindow } from "./recorder.ts";

/** How long entries are kept (ms). */
export const REQUEST_LOG_RETENTION_MS = 7 * DAY_MS;
/** The most entries kept per account; beyond it the oldest go first. */
export const REQUEST_LOG_PER_ACCOUNT = 100_000;
/** The most entries one flush interval holds for all accounts; beyond it new entries are dropped and counted. */
export const REQUEST_LOG_BATCH_LIMIT = 50_000;
/** The longest path kept, in characters. */
export const REQUEST_LOG_PATH_LENGTH = 512;

/** One request of an account's key, as logged. */
export interface RequestLogEntry {
  accountId: string;
  apiKeyId: string;
  keyPrefix: string;
  /** When it ended, Unix ms. */
  at: number;
  method: string;
  /** Path and query as sent (cut to `REQUEST_LOG_PATH_LENGTH`). */
  path: string;
  operation: Operation;
  status: number;
  errorCode: string | null;
  durationMs: number;
  requestId: string;
  /** What the account's windows had left after it; null when the deployment limits nothing. */
  minuteRemaining: number | null;
  dayRemaining: number | null;
  refusedBy: RefusingWindow | "ban" | null;
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
] as const satisfies readonly (keyof RequestLogEntry)[];

const emptyColumns = (): RequestLogColumns =>
  Object.fromEntries(FIELDS.map((f) => [f, []])) as unknown as RequestLogColumns;

/**
 * The entries of one flush interval, at most `REQUEST_LOG_BATCH_LIMIT`, kept as columns: the values of a request
 * live until the flush (seconds), and arrays of values keep far fewer objects alive into the old generation than
 * an object per request would.
 */
export class RequestLogBatch {
  private columns = emptyColumns();
  /** Entries dropped because a batch was full, since the process started. */
  dropped = 0;

  get size(): number {
    return this.columns.requestId.length;
  }

  /**
   * Adds an entry: the key's id, the request's own fields `request`, the window or ban that refused it, and what
   * the log adds, `log` (the recorder's objects as they are, so that logging allocates nothing per request).
   */
  push(
    apiKeyId: string,
    request: Pick<RequestLogEntry, "at" | "operation" | "status" | "durationMs" | "requestId">,
    refusedBy: RequestLogEntry["refusedBy"],
    log: Pick<
      RequestLogEntry,
      "accountId" | "keyPrefix" | "method" | "path" | "errorCode" | "minuteRemaining" | "dayRemaining"
    >,
  ): void {
    if (this.size >= REQUEST_LOG_BATCH_LIMIT) {
      this.dropped++;
      return;
    }
    const c = this.columns;
    c.accountId.push(log.accountId);
    c.apiKeyId.push(apiKeyId);
    c.keyPrefix.push(log.keyPrefix);
    c.at.push(request.at);
    c.method.push(log.method);
    c.path.push(
      log.path.length > REQUEST_LOG_PATH_LENGTH ? log.path.slice(0, REQUEST_LOG_PATH_LENGTH) : log.path,
    );
    c.operation.push(request.operation);
    c.status.push(request.status);
    c.errorCode.push(log.errorCode);
    c.durationMs.push(request.durationMs);
    c.requestId.push(request.requestId);
    c.minuteRemaining.push(log.minuteRemaining);
    c.dayRemaining.push(log.dayRemaining);
    c.refusedBy.push(refusedBy);
  }

  /** Everything held, emptying the batch. */
  take(): RequestLogColumns {
    const taken = this.columns;
    this.columns = emptyColumns();
    return taken;
  }

  /** Puts back entries a failed write did not store, before the newer ones, as far as the limit allows. */
  putBack(entries: RequestLogColumns): void {
    const room = Math.max(0, REQUEST_LOG_BATCH_LIMIT - this.size);
    const kept = Math.min(room, entries.requestId.length);
    this.dropped += entries.requestId.length - kept;
    const merged = emptyColumns() as Record<string, unknown[]>;
    for (const f of FIELDS)
      merged[f] = [...(entries[f] as unknown[]).slice(0, kept), ...(this.columns[f] as unknown[])];
    this.columns = merged as unknown as RequestLogColumns;
  }
}

/**
 * The recorder's writer of log entries: ONE `INSERT ... SELECT` per flush, on the direct path (db's `queryRows`:
 * node-postgres on PostgreSQL). The columns travel as one JSON parameter, which PostgreSQL turns back into arrays
 * (`json_to_record`) and rows (`unnest`): `JSON.stringify` is native code, while binding fourteen arrays of up to
 * 50,000 values has node-postgres escape every value in JavaScript on the API's event loop.
 * @throws the database error; nothing is written then.
 */
export function requestLogWriter(queryRows: QueryRows) {
  return async (c: RequestLogColumns): Promise<void> => {
    if (c.requestId.length === 0) return;
    await queryRows(Prisma.sql`
      INSERT INTO "RequestLogEntry" ("accountId", "apiKeyId", "keyPrefix", "at", "method", "path", "operation",
        "status", "errorCode", "durationMs", "requestId", "minuteRemaining", "dayRemaining", "refusedBy")
      SELECT b.a::uuid, b.k::uuid, b.p, to_timestamp(b.t / 1000.0), b.m, b.pa, b.o, b.s, b.e, b.d, b.r, b.mr,
        b.dr, b.rb
      FROM json_to_record(${JSON.stringify(c)}::json) AS c("accountId" text[], "apiKeyId" text[],
          "keyPrefix" text[], "at" float8[], "method" text[], "path" text[], "operation" text[], "status" int[],
          "errorCode" text[], "durationMs" real[], "requestId" text[], "minuteRemaining" int[],
          "dayRemaining" int[], "refusedBy" text[]),
        unnest(c."accountId", c."apiKeyId", c."keyPrefix", c."at", c."method", c."path", c."operation",
          c."status", c."errorCode", c."durationMs", c."requestId", c."minuteRemaining", c."dayRemaining",
          c."refusedBy") AS b(a, k, p, t, m, pa, o, s, e, d, r, mr, dr, rb)`);
  };
}

/**
 * Housekeeping's purge of the request log: entries older than 7 days, then, account by account, the entries beyond
 * the newest `REQUEST_LOG_PER_ACCOUNT`: the boundary entry is found by an index-only walk of the account's
 * (at, id) index, which stops early for an account with fewer entries, and the older ones are deleted by range.
 * @returns how many entries were deleted.
 */
export async function purgeRequestLog(prisma: PrismaClient, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - REQUEST_LOG_RETENTION_MS);
  let deleted = await prisma.$executeRaw`DELETE FROM "RequestLogEntry" WHERE "at" < ${cutoff}`;
  const accounts = await prisma.account.findMany({ select: { id: true } });
  for (const { id: accountId } of accounts) {
    const [boundary] = await prisma.$queryRaw<{ at: Date; id: bigint }[]>`
      SELECT "at", "id" FROM "RequestLogEntry" WHERE "accountId" = ${accountId}::uuid
      ORDER BY "at" DESC, "id" DESC OFFSET ${REQUEST_LOG_PER_ACCOUNT} LIMIT 1`;
    if (!boundary) continue;
    deleted += await prisma.$executeRaw`
      DELETE FROM "RequestLogEntry" WHERE "accountId" = ${accountId}::uuid
        AND ("at" < ${boundary.at} OR ("at" = ${boundary.at} AND "id" <= ${boundary.id}))`;
  }
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
        })),
        nextCursor:
          rows.length > query.limit && last ? encodeCursor(new Date(last.at), BigInt(last.id)) : null,
      };
    },
  };
}

export type RequestLogService = ReturnType<typeof createRequestLogService>;
