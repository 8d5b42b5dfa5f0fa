/**
 * Webhooks (docs/contract.md section 6): `createWebhooks(deps)` wires the delivery dispatcher and the endpoint
 * service into what the runtime exposes as `runtime.webhooks`: endpoint management, the delivery log and
 * replay (endpoints.ts), `start()` / `stop()` of delivery in this process, `queued(n)` for the services that
 * write events (outbox.ts), and `metrics()` / `queueStats()` for the metrics.
 */
import type { CoreDeps } from "../deps.ts";
import { createDispatcher } from "./dispatcher.ts";
import { createWebhookEndpoints } from "./endpoints.ts";
import { messageIdFloor } from "./outbox.ts";
import { createSender } from "./sender.ts";

/** Days a webhook message, its deliveries and their attempts are kept (docs/contract.md section 6). */
export const WEBHOOK_RETENTION_DAYS = 30;

export function createWebhooks(deps: CoreDeps) {
  const { config } = deps;
  const sender = createSender({
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    userAgent: `PetStore-Webhooks/1.0 (+${config.publicBaseUrl})`,
  });
  // The dispatcher disables endpoints through the endpoint service (audited); the service sends tests through it.
  let endpoints: ReturnType<typeof createWebhookEndpoints> | undefined;
  const dispatcher = createDispatcher({
    prisma: deps.prisma,
    config: config.webhooks,
    logger: deps.logger,
    ...(deps.dependencies ? { dependencies: deps.dependencies } : {}),
    sender,
    disable: (request) => (endpoints as NonNullable<typeof endpoints>).disableAutomatically(request),
  });
  endpoints = createWebhookEndpoints(deps, dispatcher);
  return {
    ...endpoints,
    start: dispatcher.start,
    stop: dispatcher.stop,
    queued: dispatcher.queued,
    metrics: dispatcher.metrics,
    queueStats: dispatcher.queueStats,
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;

/**
 * Housekeeping task: deletes messages written more than the retention ago (by the time their id begins with:
 * a range of the primary key) with their deliveries and attempts.
 */
export async function purgeWebhookMessages(
  prisma: CoreDeps["prisma"],
  now: Date,
  days = WEBHOOK_RETENTION_DAYS,
): Promise<number> {
  const before = messageIdFloor(new Date(now.getTime() - days * 86_400_000));
  // Deliveries first (no foreign key ties them to their message: schema.prisma says why); attempts go with them.
  const [, { count }] = await prisma.$transaction([
    prisma.webhookDelivery.deleteMany({ where: { eventId: { lt: before } } }),
    prisma.webhookEvent.deleteMany({ where: { id: { lt: before } } }),
  ]);
  return count;
}
