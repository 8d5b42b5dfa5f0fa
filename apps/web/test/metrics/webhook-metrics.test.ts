/**
 * The webhook metrics' definitions (src/server/metrics/webhooks.ts): deliveries by outcome, queue depth and the
 * age of the oldest waiting delivery render in the Prometheus text format from one scrape's reading, and the
 * queue gauges say NaN rather than a stale or made-up number when the database did not answer.
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  observeWebhooks,
  registerWebhookCollectors,
  type WebhookScrapeState,
} from "../../src/server/metrics/webhooks.ts";

async function render(state: WebhookScrapeState | undefined) {
  const registry = new Registry();
  const scrape: { webhooks?: WebhookScrapeState } = { webhooks: state };
  registerWebhookCollectors(registry, scrape);
  const families = parsePrometheusTextFormat(await registry.metrics());
  return Object.fromEntries(families.map((f) => [f.name, f.metrics]));
}

describe("webhook metrics", () => {
  it("render deliveries by outcome, queue depth and the oldest delivery's age", async () => {
    const metrics = await render({
      deliveries: { succeeded: 7, retrying: 2, failed: 1 },
      queue: { pending: 3, oldestPendingAgeSeconds: 12.5 },
    });
    expect(metrics.petstore_webhook_deliveries_total).toEqual([
      { labels: { outcome: "succeeded" }, value: "7" },
      { labels: { outcome: "retrying" }, value: "2" },
      { labels: { outcome: "failed" }, value: "1" },
    ]);
    expect(metrics.petstore_webhook_queue_depth).toEqual([{ value: "3" }]);
    expect(metrics.petstore_webhook_oldest_pending_age_seconds).toEqual([{ value: "12.5" }]);
  });

  it("report NaN for the queue when the database did not answer in time", async () => {
    const never = {
      webhooks: {
        metrics: () => ({ succeeded: 0, retrying: 0, failed: 0 }),
        queueStats: () => new Promise<never>(() => {}),
      },
    };
    const state = await observeWebhooks(never as never);
    expect(state.queue).toBeUndefined();
    const metrics = await render(state);
    // prom-client writes NaN as "Nan" in the text format.
    expect(metrics.petstore_webhook_queue_depth).toEqual([{ value: "Nan" }]);
    expect(metrics.petstore_webhook_oldest_pending_age_seconds).toEqual([{ value: "Nan" }]);
  });
});
