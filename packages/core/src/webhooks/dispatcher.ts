/**
 * Webhook delivery inside the server process: what is promised, docs/contract.md section 6, "Delivery, retries
 * and ordering"; how and why, docs/architecture.md "Webhook delivery". Each instance claims due deliveries from
 * the shared queue (queue.ts) and sends them with at most WEBHOOKS_CONCURRENCY attempts in flight, at most a
 * quarter of them to one endpoint. It polls every WEBHOOKS_POLL_INTERVAL_MS, and at once when a change of this
 * process queued deliveries (`queued`). An attempt costs the thread that serves the API far more than the request
 * whose event it carries, so while the event loop is busy (utilisation over BUSY_UTILISATION in the last
 * SAMPLE_MS) and this instance's own changes are queueing deliveries, it starts at most BUSY_BATCH attempts per
 * poll, and delivers its backlog at full speed once the load eases.
 */
import { performance } from "node:perf_hooks";
import type { Config } from "@petstore/config";
import type { PrismaClient } from "@petstore/db";
import DataLoader from "dataloader";
import type { Logger } from "pino";
import type { DependencyStatus } from "../dependency-status.ts";
import { translateError } from "../error-translator.ts";
import {
  type ClaimedDelivery,
  claimDue,
  claimOne,
  type Outcome,
  type QueueStats,
  queueStats,
  type Recorded,
  recordOutcomes,
  releaseClaim,
} from "./queue.ts";
import { nextDelayMs, parseRetryAfter } from "./retry.ts";
import type { AttemptResult, Sender } from "./sender.ts";

/** How an attempt ended, for the delivery: delivered, to be retried, or failed for good. */
export type DeliveryOutcome = "succeeded" | "retrying" | "failed";

/** Attempts of this process by outcome, since it started (for the metrics). */
export type DeliveryCounters = Record<DeliveryOutcome, number>;

/** Why the dispatcher disables an endpoint on its own. */
export type AutomaticDisable = { endpointId: string; reason: "gone" | "failing"; since?: Date };

export interface AttemptSummary extends AttemptResult {
  outcome: DeliveryOutcome;
  /** When the next attempt is due (retrying only). */
  nextAttemptInMs?: number;
}

/**
 * How long after a wake-up the queue is looked at, and how long finished attempts wait for others before their
 * outcomes are written: one claim and one write then serve many deliveries (each statement costs the process
 * far more than an attempt's HTTP request), for a few milliseconds of latency.
 */
const GATHER_MS = 10;

/** How long after a change's announcement another look is taken: a change that queued deliveries inside a
 * caller's transaction announces them before its commit. */
const FOLLOW_UP_MS = 100;

/** How often the event loop's utilisation is sampled, and above which share it counts as busy. */
const SAMPLE_MS = 250;
const BUSY_UTILISATION = 0.8;
/** Attempts started per poll while the API keeps the instance busy, so that delivery never stops. */
export const BUSY_BATCH = 16;

/** Upper bound of `stop()`'s wait for attempts in flight before they are cut. */
export const STOP_GRACE_MS = 3_000;

/**
 * The body of a message: `{"type","timestamp","data"}` (docs/contract.md section 6, "The request"), `data` being the
 * stored json text (written compact: outbox.ts), spliced in as it is.
 */
export function messageBody(type: string, occurredAt: Date, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":"${occurredAt.toISOString()}","data":${data}}`;
}

export function createDispatcher(deps: {
  prisma: PrismaClient;
  config: Config["webhooks"];
  logger: Logger;
  /** Told when a poll finds the database unreachable (logged once per outage there) or reachable. */
  dependencies?: DependencyStatus;
  sender: Sender;
  /** Disables an endpoint the dispatcher gave up on (410, or failing for too long); audited by the caller. */
  disable(request: AutomaticDisable): Promise<void>;
}) {
  const { prisma, config, logger, sender } = deps;
  const perEndpoint = Math.max(1, Math.ceil(config.concurrency / 4));
  // Longer than any attempt can take (its own timeout bounds it), so a lease never ends mid-attempt.
  const leaseMs = 2 * config.timeoutMs + 5_000;
  const counters: DeliveryCounters = { succeeded: 0, retrying: 0, failed: 0 };
  // Requests out, per endpoint and in all (the slots); and every attempt not yet recorded (what stop() waits for).
  const busy = new Map<string, number>();
  let sending = 0;
  const inFlight = new Map<Promise<unknown>, AbortController>();
  let running = false;
  let poller: NodeJS.Timeout | undefined;
  let followUp: NodeJS.Timeout | undefined;
  let passing = false;
  let again = false;
  let scheduled: NodeJS.Timeout | undefined;
  let sampler: NodeJS.Timeout | undefined;
  // Busy: the API keeps the event loop busy; deliveries queued by this instance since the last sample.
  let busyApi = false;
  let queuedSinceSample = 0;
  let lastUtilisation = performance.eventLoopUtilization();
  // The outcomes of attempts finishing within GATHER_MS of each other are written by one statement.
  const recorder = new DataLoader<Outcome, Recorded, Outcome>(
    (outcomes) => recordOutcomes(prisma, outcomes),
    {
      cache: false,
      batchScheduleFn: (dispatch) => setTimeout(dispatch, GATHER_MS),
    },
  );

  /**
   * Attempts one claimed delivery and writes the outcome; `sent` runs once the request is over (its slot is free
   * then, while the outcome waits to be written with others).
   */
  async function attempt(
    claimed: ClaimedDelivery,
    signal?: AbortSignal,
    sent: () => void = () => {},
  ): Promise<AttemptSummary> {
    const result = await sender
      .send(
        {
          url: claimed.url,
          messageId: claimed.eventId,
          body: messageBody(claimed.type, claimed.occurredAt, claimed.data),
          secrets: claimed.secrets,
        },
        signal,
      )
      .finally(sent);
    if (signal?.aborted && result.status === undefined) {
      // Cut by stop(): not an attempt the receiver saw an answer to; another look may be taken at once.
      await releaseClaim(prisma, claimed);
      return { ...result, outcome: "retrying", nextAttemptInMs: 0 };
    }
    const succeeded = result.status !== undefined && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    const askedDelay =
      result.status === 429 || result.status === 503
        ? parseRetryAfter(result.retryAfter, Date.now())
        : undefined;
    const retryInMs =
      succeeded || gone ? undefined : nextDelayMs(claimed.round, config.retryScheduleMs, askedDelay);
    const { written, failingSince } = await recorder.load({
      claimed,
      succeeded,
      retryInMs,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      status: result.status,
      error: result.error,
      excerpt: result.excerpt,
      requestHeaders: result.requestHeaders,
    });
    const outcome: DeliveryOutcome = succeeded
      ? "succeeded"
      : retryInMs === undefined
        ? "failed"
        : "retrying";
    if (!written) return { ...result, outcome };
    counters[outcome]++;
    if (!succeeded)
      logger.debug(
        {
          messageId: claimed.eventId,
          endpointId: claimed.endpointId,
          status: result.status,
          error: result.error,
        },
        "webhook attempt failed",
      );
    if (gone) await deps.disable({ endpointId: claimed.endpointId, reason: "gone" });
    else if (
      !succeeded &&
      failingSince &&
      Date.now() - failingSince.getTime() >= config.disableAfterHours * 3_600_000
    )
      await deps.disable({ endpointId: claimed.endpointId, reason: "failing", since: failingSince });
    return { ...result, outcome, ...(retryInMs === undefined ? {} : { nextAttemptInMs: retryInMs }) };
  }

  function track(claimed: ClaimedDelivery): void {
    const controller = new AbortController();
    busy.set(claimed.endpointId, (busy.get(claimed.endpointId) ?? 0) + 1);
    sending++;
    const sent = () => {
      sending--;
      const n = (busy.get(claimed.endpointId) ?? 1) - 1;
      if (n > 0) busy.set(claimed.endpointId, n);
      else busy.delete(claimed.endpointId);
      wake();
    };
    const task = attempt(claimed, controller.signal, sent)
      .catch((err: unknown) =>
        logger.warn(
          { err, messageId: claimed.eventId },
          "webhook attempt could not be recorded; retried later",
        ),
      )
      .finally(() => inFlight.delete(task));
    inFlight.set(task, controller);
  }

  /** Claims and starts due deliveries until the slots are full or nothing more is due. */
  async function pass(): Promise<void> {
    scheduled = undefined;
    try {
      do {
        again = false;
        const free = (busyApi ? Math.min(BUSY_BATCH, config.concurrency) : config.concurrency) - sending;
        if (free <= 0 || !running) break;
        const claimed = await claimDue(prisma, { limit: free, perEndpoint, busy, leaseMs });
        deps.dependencies?.up("database");
        for (const c of claimed) track(c);
        if (claimed.length === free) again = true;
      } while (again && running);
    } catch (err) {
      // An unreachable database is logged once per outage, not at every poll (a second apart).
      if (deps.dependencies && translateError(err).kind === "unavailable")
        deps.dependencies.down("database", err);
      else logger.warn({ err }, "looking for due webhook deliveries failed; retrying at the next poll");
    } finally {
      passing = false;
    }
  }

  /** Decides from the last SAMPLE_MS whether the API keeps this instance busy. */
  function sample(): void {
    const { utilization } = performance.eventLoopUtilization(lastUtilisation);
    lastUtilisation = performance.eventLoopUtilization();
    const was = busyApi;
    busyApi = utilization > BUSY_UTILISATION && queuedSinceSample > 0;
    queuedSinceSample = 0;
    if (was && !busyApi) wake();
  }

  /**
   * Looks for due deliveries within GATHER_MS (once, however often it is called meanwhile); while the API keeps
   * the instance busy, only the poll (`fromPoll`) does.
   */
  function wake(fromPoll = false): void {
    if (!running || (busyApi && !fromPoll)) return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    scheduled = setTimeout(() => void pass(), GATHER_MS);
  }

  return {
    /** Starts delivering: a look now, then every poll interval and whenever a change queues deliveries. */
    start(): void {
      if (running) return;
      running = true;
      poller = setInterval(() => wake(true), config.pollIntervalMs);
      poller.unref();
      lastUtilisation = performance.eventLoopUtilization();
      sampler = setInterval(sample, SAMPLE_MS);
      sampler.unref();
      wake();
    },

    /**
     * Stops looking for deliveries and waits for the attempts in flight, at most `graceMs`; attempts still
     * running then are cut, and their deliveries are handed back to the queue (due at once, for any instance).
     */
    async stop(graceMs = STOP_GRACE_MS): Promise<void> {
      running = false;
      clearInterval(poller);
      clearInterval(sampler);
      clearTimeout(followUp);
      if (scheduled) {
        clearTimeout(scheduled);
        scheduled = undefined;
        passing = false;
      }
      let timer: NodeJS.Timeout | undefined;
      const settled = Promise.allSettled([...inFlight.keys()]);
      await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const controller of inFlight.values()) controller.abort();
      await Promise.allSettled([...inFlight.keys()]);
      sender.close();
    },

    /** Told by the services that a change queued `deliveries`: sends them now rather than at the next poll. */
    queued(deliveries: number): void {
      if (deliveries <= 0 || !running) return;
      queuedSinceSample += deliveries;
      wake();
      // A transaction the caller commits later announces before its commit: look once more shortly.
      clearTimeout(followUp);
      followUp = setTimeout(wake, FOLLOW_UP_MS);
      followUp.unref();
    },

    /**
     * Claims the delivery of `eventId` to `endpointId` and attempts it now in this process, whether or not
     * delivery is started here (`webhooks test` from the CLI). Undefined when it is not pending.
     */
    async attemptNow(delivery: { eventId: string; endpointId: string }): Promise<AttemptSummary | undefined> {
      const claimed = await claimOne(prisma, delivery, leaseMs);
      return claimed ? attempt(claimed) : undefined;
    },

    /** Attempts of this process by outcome since it started. */
    metrics(): DeliveryCounters {
      return { ...counters };
    },

    /** Pending deliveries of all instances and the age of the oldest (one query). */
    queueStats(): Promise<QueueStats> {
      return queueStats(prisma);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
