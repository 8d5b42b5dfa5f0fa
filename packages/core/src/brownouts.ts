/**
 * Brownouts of deprecated operations (docs/contract.md section 4, "Brownouts"): windows `[startsAt, endsAt)` admins
 * schedule before an operation's sunset, during which it answers as after the sunset. The windows that have not
 * ended are kept in memory and read again at most every 5 s, when asked after that (so a window another instance
 * schedules or cancels applies within 5 s, and the request path makes no query of its own); the instance that
 * changes a window reads them again at once. A key's deprecation notice (`GET /v1/me`) says whether it called the
 * operation in the last 30 days, remembered per key for a minute.
 */
import {
  AppError,
  type BrownoutCreate,
  DEPRECATED_OPERATIONS,
  type DeprecatedOperation,
} from "@petstore/contracts";
import { LRUCache } from "lru-cache";
import { writeAudit } from "./audit.ts";
import type { Actor, CoreDeps } from "./deps.ts";
import { isDatabaseUnavailable } from "./error-translator.ts";
import { DAY_MS } from "./utc-day.ts";

/** How long the windows in memory are answered from before they are read again (ms): below 5 s. */
export const BROWNOUT_CACHE_MS = 4_000;
/** How long a key's getPet call count is remembered for its notice (ms). */
const NOTICE_TTL_MS = 60_000;

/** A brownout as admins see it. */
export interface BrownoutView {
  id: string;
  operation: DeprecatedOperation;
  /** RFC 3339 UTC instants; the window is `[startsAt, endsAt)`. */
  startsAt: string;
  endsAt: string;
  /** Relative to now: not started, running, or over. */
  state: "scheduled" | "active" | "ended";
  createdBy: string;
  createdAt: string;
}

/** What `GET /v1/me` tells a key that still calls a deprecated operation. */
export interface DeprecationNotice {
  operation: DeprecatedOperation;
  /** Calls of it that reached the API in the last 30 days. */
  callsLast30Days: number;
  sunsetAt: string;
  /** The successor's path under the public base URL. */
  successor: string;
  /** The windows that have not ended, soonest first. */
  brownouts: { startsAt: string; endsAt: string }[];
}

interface Window {
  operation: string;
  startsMs: number;
  endsMs: number;
}

/**
 * @param callsOf a key's deprecated-operation calls that reached the API in the last 30 days, by operation
 *   (the usage service's window sums).
 */
export function createBrownoutService(
  { prisma, clock, logger, dependencies }: CoreDeps,
  callsOf: (keyId: string) => Promise<Record<DeprecatedOperation, number>>,
) {
  let windows: Window[] = [];
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  const notices = new LRUCache<string, Record<DeprecatedOperation, number>>({
    max: 10_000,
    ttl: NOTICE_TTL_MS,
    ttlResolution: 0,
    perf: { now: () => clock().getTime() },
  });

  /** Reads the windows that have not ended; on failure keeps the ones it had and tries again after 4 s. */
  function load(): Promise<void> {
    loading ??= (async () => {
      const now = clock();
      try {
        const rows = await prisma.brownout.findMany({
          where: { endsAt: { gt: now } },
          orderBy: { startsAt: "asc" },
          select: { operation: true, startsAt: true, endsAt: true },
        });
        windows = rows.map((r) => ({
          operation: r.operation,
          startsMs: r.startsAt.getTime(),
          endsMs: r.endsAt.getTime(),
        }));
      } catch (error) {
        if (dependencies && isDatabaseUnavailable(error)) dependencies.down("database", error);
        else logger.warn({ err: error }, "could not read the brownouts");
      } finally {
        loadedAt = now.getTime();
        loading = undefined;
      }
    })();
    return loading;
  }

  const view = (
    r: { id: string; operation: string; startsAt: Date; endsAt: Date; createdBy: string; createdAt: Date },
    now: Date,
  ): BrownoutView => ({
    id: r.id,
    operation: r.operation as DeprecatedOperation,
    startsAt: r.startsAt.toISOString(),
    endsAt: r.endsAt.toISOString(),
    state: now < r.startsAt ? "scheduled" : now < r.endsAt ? "active" : "ended",
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
  });

  const upcoming = (operation: DeprecatedOperation, nowMs: number) =>
    windows
      .filter((w) => w.operation === operation && w.endsMs > nowMs)
      .map((w) => ({
        startsAt: new Date(w.startsMs).toISOString(),
        endsAt: new Date(w.endsMs).toISOString(),
      }));

  return {
    /**
     * Whether `operation` is browned out at the clock's now. Answers from memory; the first call of a process
     * waits for the one read of the windows, later ones read them again in the background when 4 s old.
     */
    async active(operation: DeprecatedOperation): Promise<boolean> {
      if (loadedAt === Number.NEGATIVE_INFINITY) await load();
      const nowMs = clock().getTime();
      if (nowMs - loadedAt >= BROWNOUT_CACHE_MS) void load();
      return windows.some((w) => w.operation === operation && w.startsMs <= nowMs && nowMs < w.endsMs);
    },

    /** The windows that end after 30 days ago, soonest start first. */
    async list(): Promise<BrownoutView[]> {
      const now = clock();
      const rows = await prisma.brownout.findMany({
        where: { endsAt: { gt: new Date(now.getTime() - 30 * DAY_MS) } },
        orderBy: { startsAt: "asc" },
      });
      return rows.map((r) => view(r, now));
    },

    /**
     * Schedules a window of `durationMinutes` from `startsAt`, audited (`brownout.schedule`).
     * @throws AppError validation_failed when it starts in the past or does not end before the sunset; conflict
     *   when it overlaps another window of the operation.
     */
    async schedule(input: BrownoutCreate, actor: Actor): Promise<BrownoutView> {
      const now = clock();
      const startsAt = new Date(input.startsAt);
      const endsAt = new Date(startsAt.getTime() + input.durationMinutes * 60_000);
      const { sunsetAt } = DEPRECATED_OPERATIONS[input.operation];
      const invalid = (path: string, message: string) =>
        new AppError("validation_failed", message, [{ path, message }]);
      if (startsAt < now) throw invalid("startsAt", "must not be in the past");
      if (endsAt > sunsetAt)
        throw invalid(
          "startsAt",
          `must end by the sunset (${sunsetAt.toISOString()}): after it, it is gone anyway`,
        );
      const row = await prisma.$transaction(async (tx) => {
        const overlap = await tx.brownout.findFirst({
          where: { operation: input.operation, startsAt: { lt: endsAt }, endsAt: { gt: startsAt } },
        });
        if (overlap)
          throw new AppError(
            "conflict",
            `It overlaps the brownout from ${overlap.startsAt.toISOString()} to ${overlap.endsAt.toISOString()}.`,
          );
        const created = await tx.brownout.create({
          data: { operation: input.operation, startsAt, endsAt, createdBy: actor },
        });
        await writeAudit(tx, {
          actor,
          action: "brownout.schedule",
          entityType: "brownout",
          entityId: created.id,
          after: created,
        });
        return created;
      });
      await load();
      return view(row, now);
    },

    /** Cancels a window (a running one ends now), audited (`brownout.cancel`). @throws AppError not_found. */
    async cancel(id: string, actor: Actor): Promise<{ id: string }> {
      await prisma.$transaction(async (tx) => {
        const before = await tx.brownout.findUnique({ where: { id } });
        if (!before) throw new AppError("not_found", `No brownout ${id}.`);
        await tx.brownout.delete({ where: { id } });
        await writeAudit(tx, {
          actor,
          action: "brownout.cancel",
          entityType: "brownout",
          entityId: id,
          before,
        });
      });
      await load();
      return { id };
    },

    /**
     * The deprecation notices of key `keyId`: one per deprecated operation it called in the last 30 days, with
     * the windows that have not ended (from memory). The call counts are remembered for a minute per key.
     */
    async noticesFor(keyId: string): Promise<DeprecationNotice[]> {
      let calls = notices.get(keyId);
      if (!calls) {
        calls = await callsOf(keyId);
        notices.set(keyId, calls);
      }
      if (loadedAt === Number.NEGATIVE_INFINITY) await load();
      const nowMs = clock().getTime();
      return (Object.keys(DEPRECATED_OPERATIONS) as DeprecatedOperation[])
        .filter((operation) => calls[operation] > 0)
        .map((operation) => ({
          operation,
          callsLast30Days: calls[operation],
          sunsetAt: DEPRECATED_OPERATIONS[operation].sunsetAt.toISOString(),
          successor: DEPRECATED_OPERATIONS[operation].successor,
          brownouts: upcoming(operation, nowMs),
        }));
    },
  };
}

export type BrownoutService = ReturnType<typeof createBrownoutService>;
