/**
 * Webhook metrics (docs/contract.md section 6; docs/operations.md "Metrics"), read at scrape time like the
 * collectors in `collectors.ts`: `observeWebhooks(rt)` takes one reading per scrape (this instance's delivery
 * counters from `runtime.webhooks.metrics()`, and the shared queue from `runtime.webhooks.queueStats()`, one
 * bounded query), and `registerWebhookCollectors` copies it into a registry from prom-client's `collect()`
 * callbacks.
 *
 * - `petstore_webhook_deliveries_total{outcome}` (counter, this instance): attempts by what they meant for
 *   their delivery: `succeeded`, `retrying` (failed, another attempt is scheduled), `failed` (failed for good:
 *   schedule used up, 410, or the endpoint was disabled).
 * - `petstore_webhook_queue_depth` (gauge, all instances): deliveries waiting, first attempts and retries.
 * - `petstore_webhook_oldest_pending_age_seconds` (gauge, all instances): how long the oldest of them has waited.
 * The gauges are NaN when the database did not answer within 1 s.
 */
import { type Runtime, withTimeout } from "@petstore/core";
import { Counter, Gauge, type Registry } from "prom-client";

type Webhooks = Runtime["webhooks"];

/** One scrape's reading of webhook delivery. */
export interface WebhookScrapeState {
  deliveries: ReturnType<Webhooks["metrics"]>;
  /** Absent when the queue could not be read in time. */
  queue?: Awaited<ReturnType<Webhooks["queueStats"]>>;
}

/** Upper bound (ms) of the queue query of one scrape. */
const QUEUE_TIMEOUT_MS = 1000;

export async function observeWebhooks(rt: Pick<Runtime, "webhooks">): Promise<WebhookScrapeState> {
  const queue = await withTimeout(rt.webhooks.queueStats(), QUEUE_TIMEOUT_MS, "webhook queue").catch(
    () => undefined,
  );
  return { deliveries: rt.webhooks.metrics(), ...(queue ? { queue } : {}) };
}

/** Registers the webhook metrics on `registry`; their `collect()` reads `scrape.webhooks`. */
export function registerWebhookCollectors(
  registry: Registry,
  scrape: { webhooks?: WebhookScrapeState },
): void {
  const registers = [registry];
  new Counter({
    name: "petstore_webhook_deliveries_total",
    help: "Webhook delivery attempts of this instance by outcome: succeeded, retrying (failed, retry scheduled), failed (failed for good).",
    labelNames: ["outcome"] as const,
    registers,
    collect() {
      this.reset();
      const counts = scrape.webhooks?.deliveries;
      if (!counts) return;
      for (const [outcome, n] of Object.entries(counts)) this.inc({ outcome }, n);
    },
  });
  new Gauge({
    name: "petstore_webhook_queue_depth",
    help: "Webhook deliveries waiting to be sent (first attempts and retries), all instances; NaN when the database did not answer.",
    registers,
    collect() {
      this.set(scrape.webhooks?.queue?.pending ?? Number.NaN);
    },
  });
  new Gauge({
    name: "petstore_webhook_oldest_pending_age_seconds",
    help: "Seconds the oldest waiting webhook delivery has waited since it was queued (0 when none), all instances; NaN when the database did not answer.",
    registers,
    collect() {
      this.set(scrape.webhooks?.queue?.oldestPendingAgeSeconds ?? Number.NaN);
    },
  });
}
