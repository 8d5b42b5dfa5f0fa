/**
 * Usage alerts (docs/contract.md section 7, "Usage alerts"): a consumer account's thresholds (percentages of its
 * day and month windows) are decided from the counts the rate limiter already returned for a request, never by a
 * query per request; the request whose count reaches a threshold records the alert (one `UsageAlert` row per
 * account, window, window start and threshold: the first insert wins, on any instance), queues a
 * `usage.threshold` webhook event to the account's endpoints and the store's, and mails the account's owners (the
 * mail is logged when no SMTP server is configured).
 */
import type { ApiCaller } from "../api-keys/verifier.ts";
import type { CoreDeps } from "../deps.ts";
import type { Mailer } from "../mail.ts";
import type { RateLimitDecision } from "../ratelimit/types.ts";
import { monthStart } from "../ratelimit/windows.ts";
import { DAY_MS } from "../utc-day.ts";
import { type QueuedListener, recordEvents } from "../webhooks/outbox.ts";

/** A threshold a request's count reached in one window. */
export interface CrossedThreshold {
  accountId: string;
  window: "day" | "month";
  /** When the window began and when it ends. */
  windowStart: Date;
  resetsAt: Date;
  /** Percent of `limit`. */
  threshold: number;
  limit: number;
  /** The window's count with the request that reached the threshold. */
  count: number;
}

/** The `data` of a `usage.threshold` event (docs/contract.md section 6, "Events"). */
export interface UsageThresholdData {
  accountId: string;
  accountName: string;
  window: "day" | "month";
  threshold: number;
  limit: number;
  count: number;
  resetsAt: string;
}

/**
 * How long a sent alert's row is kept (ms): past the end of its window (a month at most), no request can reach
 * its threshold again, so the row guards nothing.
 */
export const USAGE_ALERT_RETENTION_MS = 62 * DAY_MS;

/** Deletes the rows of alerts whose window began more than USAGE_ALERT_RETENTION_MS before `now`. @returns how many. */
export function purgeUsageAlerts(prisma: CoreDeps["prisma"], now: Date): Promise<number> {
  return prisma.$executeRaw`DELETE FROM "UsageAlert" WHERE "windowStart" < ${new Date(now.getTime() - USAGE_ALERT_RETENTION_MS)}`;
}

/** The requests of `limit` that reach `threshold` percent (at least 1). */
export const thresholdCount = (limit: number, threshold: number) =>
  Math.max(1, Math.ceil((limit * threshold) / 100));

/**
 * The thresholds a request reached, from its admitted `decision`: in each of the day and month windows, the
 * thresholds whose count is exactly the request's (the store counts atomically, so one request across every
 * instance has each count). Empty for a refusal or a decision made without the store.
 */
export function reachedThresholds(
  accountId: string,
  thresholds: readonly number[],
  decision: RateLimitDecision,
): CrossedThreshold[] {
  if (!decision.allowed || decision.degraded || thresholds.length === 0) return [];
  const reached: CrossedThreshold[] = [];
  for (const w of decision.windows) {
    if (w.name !== "day" && w.name !== "month") continue;
    const count = w.limit - w.remaining;
    for (const threshold of thresholds)
      if (count === thresholdCount(w.limit, threshold))
        reached.push({
          accountId,
          window: w.name,
          windowStart: new Date(w.name === "day" ? w.resetMs - DAY_MS : monthStart(w.resetMs - 1)),
          resetsAt: new Date(w.resetMs),
          threshold,
          limit: w.limit,
          count,
        });
  }
  return reached;
}

/** The owners' mail of an alert. */
function alertMail(data: UsageThresholdData): { subject: string; text: string } {
  const span = data.window === "day" ? "today (UTC)" : "this month (UTC)";
  return {
    subject: `${data.accountName}: ${data.threshold}% of the ${data.window}'s API requests used`,
    text:
      `The API keys of ${data.accountName} have made ${data.count} of the ${data.limit} requests they may make ${span} ` +
      `(${data.threshold}%). ` +
      (data.threshold >= 100
        ? `Further requests are refused until ${data.resetsAt}.`
        : `The count starts over at ${data.resetsAt}.`) +
      "\n\nYou get this mail as an owner of the account; its owners set the thresholds on the account page of the developer portal.\n",
  };
}

/**
 * @returns `observe(caller, decision)` for the /v1 admission (synchronous; I/O only for a request that reached a
 *   threshold), `send(crossed)` (records and sends one alert unless it was sent already; resolves whether this call
 *   sent it; never rejects: failures are logged), and `settled()` (resolves when the alerts begun so far are done).
 */
export function createUsageAlerts(
  { prisma, logger }: Pick<CoreDeps, "prisma" | "logger">,
  mailer: Mailer,
  queued: QueuedListener,
) {
  const running = new Set<Promise<unknown>>();

  async function send(crossed: CrossedThreshold): Promise<boolean> {
    try {
      const sent = await prisma.$transaction(async (tx) => {
        const [account] = await tx.$queryRaw<{ name: string }[]>`
          WITH inserted AS (
            INSERT INTO "UsageAlert" ("accountId", "window", "windowStart", "threshold", "limit", "count")
            VALUES (${crossed.accountId}::uuid, ${crossed.window}, ${crossed.windowStart}, ${crossed.threshold},
                    ${crossed.limit}, ${crossed.count})
            ON CONFLICT DO NOTHING RETURNING "accountId")
          SELECT a."name" FROM inserted i JOIN "Account" a ON a."id" = i."accountId"`;
        if (!account) return undefined;
        const data: UsageThresholdData = {
          accountId: crossed.accountId,
          accountName: account.name,
          window: crossed.window,
          threshold: crossed.threshold,
          limit: crossed.limit,
          count: crossed.count,
          resetsAt: crossed.resetsAt.toISOString(),
        };
        const deliveries = await recordEvents(tx, [
          { type: "usage.threshold", data: { ...data }, accountId: crossed.accountId },
        ]);
        return { data, deliveries };
      });
      if (!sent) return false;
      if (sent.deliveries) queued(sent.deliveries);
      const owners = await prisma.user.findMany({
        where: { accountId: crossed.accountId, role: "owner", active: true },
        select: { email: true },
        orderBy: { email: "asc" },
      });
      const mail = alertMail(sent.data);
      for (const { email } of owners) {
        if ((await mailer({ to: email, ...mail })) === "off")
          logger.info({ to: email, ...mail }, "usage alert mail (no SMTP_URL: logged instead)");
      }
      return true;
    } catch (err) {
      logger.warn({ err, ...crossed }, "usage alert not sent");
      return false;
    }
  }

  const track = (p: Promise<unknown>) => {
    running.add(p);
    void p.finally(() => running.delete(p));
  };

  return {
    observe(caller: Pick<ApiCaller, "account" | "alertThresholds">, decision: RateLimitDecision): void {
      if (!caller.account) return;
      for (const crossed of reachedThresholds(caller.account.id, caller.alertThresholds, decision))
        track(send(crossed));
    },
    send,
    async settled(): Promise<void> {
      while (running.size) await Promise.all([...running]);
    },
  };
}

export type UsageAlerts = ReturnType<typeof createUsageAlerts>;
