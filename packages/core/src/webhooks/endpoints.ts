/**
 * Webhook endpoints of the store or of one account (docs/contract.md sections 6-7, docs/architecture.md "Accounts
 * scoped in core"). Every change is audited; a secret is returned once.
 */
import { randomBytes } from "node:crypto";
import {
  AppError,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookDeliveryLogQuery,
  type WebhookEndpointCreate,
  type WebhookEndpointUpdate,
  type WebhookReplayMessage,
  type WebhookReplayRange,
  type WebhookTestType,
} from "@petstore/contracts";
import { Prisma, type WebhookAttempt, type WebhookEndpoint } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import { type Actor, type CoreDeps, SYSTEM_ACTOR } from "../deps.ts";
import type { AttemptSummary, AutomaticDisable, Dispatcher } from "./dispatcher.ts";
import { messageBody } from "./dispatcher.ts";
import { testMessageData } from "./examples.ts";
import { messageIdFloor, reaches } from "./outbox.ts";
import { failPendingOf } from "./queue.ts";
import { checkTarget } from "./targets.ts";

/**
 * SQL: message `e` may go to endpoint `ep`: a test message only to the endpoint it was sent to, any other to the
 * subscribed endpoints it may reach (outbox.ts `reaches`: an order's events, its account's and the store's).
 */
const deliverable = Prisma.sql`(CASE WHEN e."testEndpointId" IS NULL THEN e."type" = ANY (ep."eventTypes") AND ${reaches("e", "ep")}
                                     ELSE e."testEndpointId" = ep."id" END)`;

/** How long a rotated-out secret still signs deliveries (docs/contract.md section 6). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks "Signature scheme"). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  /** Why it is disabled (a sentence), or null while enabled. */
  disabledReason: string | null;
  disabledAt: string | null;
  /** Since when every attempt has failed, or null. */
  failingSince: string | null;
  /** Until when the previous secret still signs deliveries after a rotation, or null. */
  previousSecretExpiresAt: string | null;
  createdBy: string;
  createdAt: string;
  /** The consumer account that manages it in the portal, or null for the store's own. */
  accountId: string | null;
  /** Deliveries waiting to be sent (first attempts and retries). */
  pending: number;
  /** Attempts of the last 7 days, and how many of them succeeded (the success rate). */
  attempts7d: number;
  succeeded7d: number;
}

/** A new or rotated endpoint: the only time `secret` is returned. */
export interface EndpointWithSecret {
  id: string;
  url: string;
  eventTypes: string[];
  secret: string;
}

export interface WebhookAttemptView {
  id: number;
  messageId: string;
  eventType: string;
  number: number;
  startedAt: string;
  durationMs: number;
  succeeded: boolean;
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** The request's headers by lower-case name, as sent; null when nothing was sent. */
  requestHeaders: Record<string, string> | null;
}

export interface WebhookMessageView {
  id: string;
  type: string;
  occurredAt: string;
  /** The body as it is sent (each attempt signs this text). */
  body: string;
  deliveries: {
    endpointId: string;
    url: string;
    state: "pending" | "succeeded" | "failed";
    attempts: number;
    nextAttemptAt: string | null;
    attemptLog: WebhookAttemptView[];
  }[];
}

type EndpointRow = WebhookEndpoint & { _count?: { deliveries: number } };

/** An attempt's stored request headers as a view shows them: only string values of a JSON object, else null. */
function storedHeaders(stored: Prisma.JsonValue | null): Record<string, string> | null {
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return null;
  return Object.fromEntries(
    Object.entries(stored).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

function toView(
  row: EndpointRow,
  pending = 0,
  recent: { attempts: number; succeeded: number } = { attempts: 0, succeeded: 0 },
): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    failingSince: row.failingSince?.toISOString() ?? null,
    previousSecretExpiresAt:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date()
        ? row.previousSecretExpiresAt.toISOString()
        : null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    accountId: row.accountId,
    pending,
    attempts7d: recent.attempts,
    succeeded7d: recent.succeeded,
  };
}

/** What the audit log keeps of an endpoint: never its secrets. */
const audited = (row: WebhookEndpoint) => ({
  url: row.url,
  description: row.description,
  eventTypes: row.eventTypes,
  enabled: row.enabled,
  disabledReason: row.disabledReason,
});

const notFound = (id: string) => new AppError("not_found", `No webhook endpoint with id ${id}.`);
const noMessage = (id: string) => new AppError("not_found", `No webhook message with id ${id}.`);

function attemptView(a: WebhookAttempt, eventType: string): WebhookAttemptView {
  return {
    id: Number(a.id),
    messageId: a.eventId,
    eventType,
    number: a.number,
    startedAt: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    succeeded: a.succeeded,
    status: a.status,
    error: a.error,
    responseExcerpt: a.responseExcerpt,
    requestHeaders: storedHeaders(a.requestHeaders),
  };
}

/** @returns the store's endpoint service, `forAccount(id)` (one account's), `disableAutomatically`. */
export function createWebhookEndpoints(deps: CoreDeps, dispatcher: Dispatcher) {
  const { prisma, config } = deps;
  const allowPrivate = config.webhooks.allowPrivateTargets;

  /** Endpoint `id` within `accountId`'s endpoints (every endpoint when undefined). @throws not_found. */
  async function find(
    db: Prisma.TransactionClient,
    id: string,
    accountId?: string,
  ): Promise<WebhookEndpoint> {
    const row = await db.webhookEndpoint.findFirst({ where: { id, ...(accountId ? { accountId } : {}) } });
    if (!row) throw notFound(id);
    return row;
  }

  async function pendingCounts(ids: string[]): Promise<Map<string, number>> {
    const rows = await prisma.webhookDelivery.groupBy({
      by: ["endpointId"],
      where: { endpointId: { in: ids }, state: "pending" },
      _count: { _all: true },
    });
    return new Map(rows.map((r) => [r.endpointId, r._count._all]));
  }

  /** Each endpoint's attempts of the last 7 days and how many succeeded. */
  async function recentAttempts(
    ids: string[],
  ): Promise<Map<string, { attempts: number; succeeded: number }>> {
    const since = new Date(deps.clock().getTime() - 7 * 86_400_000);
    const rows = await prisma.webhookAttempt.groupBy({
      by: ["endpointId", "succeeded"],
      where: { endpointId: { in: ids }, startedAt: { gte: since } },
      _count: { _all: true },
    });
    const byEndpoint = new Map<string, { attempts: number; succeeded: number }>();
    for (const r of rows) {
      const entry = byEndpoint.get(r.endpointId) ?? { attempts: 0, succeeded: 0 };
      entry.attempts += r._count._all;
      if (r.succeeded) entry.succeeded += r._count._all;
      byEndpoint.set(r.endpointId, entry);
    }
    return byEndpoint;
  }

  /** Disables `id` (no-op when already disabled) and ends its pending deliveries, in one transaction. */
  async function disable(id: string, reason: string, actor: Actor, accountId?: string) {
    return prisma.$transaction(async (tx) => {
      const before = await find(tx, id, accountId);
      if (!before.enabled) return before;
      const row = await tx.webhookEndpoint.update({
        where: { id },
        data: { enabled: false, disabledReason: reason, disabledAt: new Date() },
      });
      await failPendingOf(tx, id);
      await writeAudit(tx, {
        actor,
        action: "webhookEndpoint.disable",
        entityType: "webhookEndpoint",
        entityId: id,
        before: audited(before),
        after: audited(row),
      });
      return row;
    });
  }

  /** Queues (event, endpoint) `pairs` now, leaving attempts in flight alone; audited. @returns the count. */
  async function queueReplays(pairs: Prisma.Sql, actor: Actor, audit: Record<string, unknown>) {
    const perEndpoint = await prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ endpointId: string; queued: number }[]>`
        WITH pairs AS (${pairs}), q AS (
          INSERT INTO "WebhookDelivery" ("eventId", "endpointId")
          SELECT "eventId", "endpointId" FROM pairs
          ON CONFLICT ("eventId", "endpointId") DO UPDATE
          SET "state" = 'pending', "round" = 0, "nextAttemptAt" = now(), "queuedAt" = now()
          WHERE "WebhookDelivery"."claim" IS NULL
          RETURNING "endpointId"
        )
        SELECT "endpointId"::text AS "endpointId", count(*)::int AS "queued" FROM q GROUP BY "endpointId"`;
      for (const row of rows)
        await writeAudit(tx, {
          actor,
          action: "webhookEndpoint.replay",
          entityType: "webhookEndpoint",
          entityId: row.endpointId,
          after: { ...audit, queued: row.queued },
        });
      return rows;
    });
    const queued = perEndpoint.reduce((sum, row) => sum + row.queued, 0);
    dispatcher.queued(queued);
    return queued;
  }

  /** @throws AppError validation_failed (path endpointId) unless `endpoint` may get `event` now. */
  function requireSubscribed(
    endpoint: WebhookEndpoint,
    event: { type: string; testEndpointId: string | null; accountId: string | null },
  ) {
    if (
      event.testEndpointId === null
        ? endpoint.eventTypes.includes(event.type) &&
          (!/^(order|usage|key)\./.test(event.type) ||
            endpoint.accountId === null ||
            endpoint.accountId === event.accountId)
        : event.testEndpointId === endpoint.id
    )
      return;
    throw new AppError(
      "validation_failed",
      `The webhook endpoint ${endpoint.url} is not subscribed to ${event.type} messages; add the type to its event types to replay this message to it.`,
      [{ path: "endpointId", message: `is not subscribed to ${event.type}` }],
    );
  }

  /** The service over the endpoints of account `accountId`, or over every endpoint when undefined. */
  function scoped(accountId?: string) {
    const view = async (id: string): Promise<WebhookEndpointView> => {
      const row = await find(prisma, id, accountId);
      const [pending, recent] = await Promise.all([pendingCounts([id]), recentAttempts([id])]);
      return toView(row, pending.get(id), recent.get(id));
    };

    const requireEnabled = async (id: string): Promise<WebhookEndpoint> => {
      const endpoint = await find(prisma, id, accountId);
      if (!endpoint.enabled)
        throw new AppError(
          "conflict",
          `The webhook endpoint ${endpoint.url} is disabled; enable it before replaying messages to it.`,
        );
      return endpoint;
    };

    /** Message `id` and its deliveries in scope (an account's message has one). @throws not_found. */
    const findMessage = async (id: string) => {
      const own = accountId
        ? (await prisma.webhookEndpoint.findMany({ where: { accountId }, select: { id: true } })).map(
            (e) => e.id,
          )
        : undefined;
      const [event, deliveries] = await Promise.all([
        prisma.webhookEvent.findUnique({ where: { id } }),
        prisma.webhookDelivery.findMany({
          where: { eventId: id, ...(own ? { endpointId: { in: own } } : {}) },
          orderBy: { queuedAt: "asc" },
        }),
      ]);
      if (!event || (own && deliveries.length === 0)) throw noMessage(id);
      return { event, deliveries };
    };

    return {
      /** Registers an endpoint (https, public: contract section 6). @throws validation_failed (path url). */
      async create(input: WebhookEndpointCreate, actor: Actor): Promise<EndpointWithSecret> {
        const url = await checkTarget(input.url, allowPrivate);
        const secret = newWebhookSecret();
        return prisma.$transaction(async (tx) => {
          const row = await tx.webhookEndpoint.create({
            data: {
              url,
              eventTypes: input.eventTypes,
              description: input.description,
              secret,
              createdBy: actor,
              accountId: accountId ?? null,
            },
          });
          await writeAudit(tx, {
            actor,
            action: "webhookEndpoint.create",
            entityType: "webhookEndpoint",
            entityId: row.id,
            after: audited(row),
          });
          return { id: row.id, url: row.url, eventTypes: row.eventTypes, secret };
        });
      },

      /** Oldest first, with pending deliveries and the last 7 days' attempts. */
      async list(): Promise<WebhookEndpointView[]> {
        const rows = await prisma.webhookEndpoint.findMany({
          ...(accountId ? { where: { accountId } } : {}),
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        });
        const ids = rows.map((r) => r.id);
        const [pending, recent] = await Promise.all([pendingCounts(ids), recentAttempts(ids)]);
        return rows.map((r) => toView(r, pending.get(r.id), recent.get(r.id)));
      },

      get: view,

      /** @throws AppError not_found, validation_failed. */
      async update(input: WebhookEndpointUpdate, actor: Actor): Promise<WebhookEndpointView> {
        const url = input.url === undefined ? undefined : await checkTarget(input.url, allowPrivate);
        const row = await prisma.$transaction(async (tx) => {
          const before = await find(tx, input.id, accountId);
          const after = await tx.webhookEndpoint.update({
            where: { id: input.id },
            data: {
              ...(url === undefined ? {} : { url }),
              ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
              ...(input.description === undefined ? {} : { description: input.description }),
            },
          });
          await writeAudit(tx, {
            actor,
            action: "webhookEndpoint.update",
            entityType: "webhookEndpoint",
            entityId: input.id,
            before: audited(before),
            after: audited(after),
          });
          return after;
        });
        return view(row.id);
      },

      /** Delivers new events again; the failure streak starts over. */
      async enable(id: string, actor: Actor): Promise<WebhookEndpointView> {
        await prisma.$transaction(async (tx) => {
          const before = await find(tx, id, accountId);
          if (before.enabled) return;
          const row = await tx.webhookEndpoint.update({
            where: { id },
            data: { enabled: true, disabledReason: null, disabledAt: null, failingSince: null },
          });
          await writeAudit(tx, {
            actor,
            action: "webhookEndpoint.enable",
            entityType: "webhookEndpoint",
            entityId: id,
            before: audited(before),
            after: audited(row),
          });
        });
        return view(id);
      },

      /** Sends nothing more; pending deliveries fail. */
      async disable(id: string, actor: Actor): Promise<WebhookEndpointView> {
        await disable(id, `Disabled by ${actor}`, actor, accountId);
        return view(id);
      },

      /** A new secret (returned once); the old one also signs for 24 h. @throws AppError not_found. */
      async rotate(id: string, actor: Actor): Promise<EndpointWithSecret> {
        const secret = newWebhookSecret();
        return prisma.$transaction(async (tx) => {
          const before = await find(tx, id, accountId);
          const expiresAt = new Date(Date.now() + PREVIOUS_SECRET_GRACE_MS);
          const row = await tx.webhookEndpoint.update({
            where: { id },
            data: { secret, previousSecret: before.secret, previousSecretExpiresAt: expiresAt },
          });
          await writeAudit(tx, {
            actor,
            action: "webhookEndpoint.rotate",
            entityType: "webhookEndpoint",
            entityId: id,
            after: { url: row.url, previousSecretExpiresAt: expiresAt.toISOString() },
          });
          return { id, url: row.url, eventTypes: row.eventTypes, secret };
        });
      },

      /** Deletes the endpoint, its deliveries and attempts. @throws AppError not_found. */
      async remove(id: string, actor: Actor): Promise<void> {
        await prisma.$transaction(async (tx) => {
          const before = await find(tx, id, accountId);
          // Its deliveries are not tied to it by a foreign key (schema.prisma says why); their attempts are.
          await tx.webhookDelivery.deleteMany({ where: { endpointId: id } });
          await tx.webhookEndpoint.delete({ where: { id } });
          await writeAudit(tx, {
            actor,
            action: "webhookEndpoint.delete",
            entityType: "webhookEndpoint",
            entityId: id,
            before: audited(before),
          });
        });
      },

      /** Sends a `type` test message (examples.ts) to this endpoint only, now. @throws AppError not_found. */
      async sendTest(
        id: string,
        actor: Actor,
        type: WebhookTestType = WEBHOOK_TEST_EVENT_TYPE,
      ): Promise<{ messageId: string; attempt: AttemptSummary | undefined }> {
        const messageId = await prisma.$transaction(async (tx) => {
          const endpoint = await find(tx, id, accountId);
          const event = await tx.webhookEvent.create({
            data: { type, data: JSON.stringify(testMessageData(type, id)), testEndpointId: id },
          });
          // Claimed for this process from the start (nextAttemptAt in the future): attempted right below.
          await tx.webhookDelivery.create({
            data: { eventId: event.id, endpointId: id, nextAttemptAt: new Date(Date.now() + 60_000) },
          });
          await writeAudit(tx, {
            actor,
            action: "webhookEndpoint.test",
            entityType: "webhookEndpoint",
            entityId: id,
            after: { url: endpoint.url, messageId: event.id, type },
          });
          return event.id;
        });
        return { messageId, attempt: await dispatcher.attemptNow({ eventId: messageId, endpointId: id }) };
      },

      /** One page of the endpoint's attempts, newest first. @throws AppError not_found. */
      async deliveryLog(
        query: WebhookDeliveryLogQuery,
      ): Promise<{ rows: WebhookAttemptView[]; total: number }> {
        await find(prisma, query.endpointId, accountId);
        const where: Prisma.WebhookAttemptWhereInput = {
          endpointId: query.endpointId,
          ...(query.outcome ? { succeeded: query.outcome === "succeeded" } : {}),
        };
        const [total, rows] = await prisma.$transaction([
          prisma.webhookAttempt.count({ where }),
          prisma.webhookAttempt.findMany({
            where,
            orderBy: [{ startedAt: "desc" }, { id: "desc" }],
            skip: (query.page - 1) * query.pageSize,
            take: query.pageSize,
          }),
        ]);
        const events = await prisma.webhookEvent.findMany({
          where: { id: { in: [...new Set(rows.map((a) => a.eventId))] } },
          select: { id: true, type: true },
        });
        const typeOf = new Map(events.map((e) => [e.id, e.type]));
        return { total, rows: rows.map((a) => attemptView(a, typeOf.get(a.eventId) ?? "")) };
      },

      /** A message with, per endpoint in scope, its delivery and attempts. @throws AppError not_found. */
      async message(id: string): Promise<WebhookMessageView> {
        const { event, deliveries } = await findMessage(id);
        const endpointIds = deliveries.map((d) => d.endpointId);
        const [attempts, endpoints] = await Promise.all([
          prisma.webhookAttempt.findMany({
            where: { eventId: id, endpointId: { in: endpointIds } },
            orderBy: [{ startedAt: "desc" }, { id: "desc" }],
          }),
          prisma.webhookEndpoint.findMany({
            where: { id: { in: endpointIds } },
            select: { id: true, url: true },
          }),
        ]);
        const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
        return {
          id: event.id,
          type: event.type,
          occurredAt: event.occurredAt.toISOString(),
          body: messageBody(event.type, event.occurredAt, event.data),
          // A delivery whose endpoint was deleted meanwhile is gone with it.
          deliveries: deliveries
            .filter((d) => urlOf.has(d.endpointId))
            .map((d) => ({
              endpointId: d.endpointId,
              url: urlOf.get(d.endpointId) as string,
              state: d.state,
              attempts: d.attempts,
              nextAttemptAt: d.state === "pending" ? (d.nextAttemptAt?.toISOString() ?? null) : null,
              attemptLog: attempts
                .filter((a) => a.endpointId === d.endpointId)
                .map((a) => attemptView(a, event.type)),
            })),
        };
      },

      /**
       * Sends a message again (same `webhook-id`) to `endpointId`, or to the enabled endpoints in scope it went
       * to. @returns deliveries queued. @throws AppError not_found, conflict (disabled), validation_failed.
       */
      async replayMessage(input: WebhookReplayMessage, actor: Actor): Promise<number> {
        const { event } = await findMessage(input.messageId);
        if (input.endpointId) {
          requireSubscribed(await requireEnabled(input.endpointId), event);
          return queueReplays(
            Prisma.sql`SELECT ${event.id}::text AS "eventId", ${input.endpointId}::uuid AS "endpointId"`,
            actor,
            { messageId: event.id },
          );
        }
        const inScope = accountId ? Prisma.sql`AND ep."accountId" = ${accountId}::uuid` : Prisma.empty;
        return queueReplays(
          Prisma.sql`SELECT d."eventId", d."endpointId" FROM "WebhookDelivery" d
                     JOIN "WebhookEvent" e ON e."id" = d."eventId"
                     JOIN "WebhookEndpoint" ep ON ep."id" = d."endpointId" AND ep."enabled" ${inScope}
                     WHERE d."eventId" = ${event.id} AND ${deliverable}`,
          actor,
          { messageId: event.id },
        );
      },

      /** Re-sends the endpoint's messages of `[since, until)`, or its failed ones. @throws not_found, conflict. */
      async replayRange(input: WebhookReplayRange, actor: Actor): Promise<number> {
        const endpoint = await requireEnabled(input.endpointId);
        const until = input.until ? new Date(input.until) : new Date();
        const since = new Date(input.since);
        // Message ids begin with the time they were written: the range is one of the primary key.
        const [from, to] = [messageIdFloor(since), messageIdFloor(until)];
        const pairs = input.failedOnly
          ? Prisma.sql`SELECT d."eventId", d."endpointId" FROM "WebhookDelivery" d
                       JOIN "WebhookEvent" e ON e."id" = d."eventId"
                       JOIN "WebhookEndpoint" ep ON ep."id" = d."endpointId"
                       WHERE d."endpointId" = ${endpoint.id}::uuid AND d."state" = 'failed'
                         AND d."eventId" >= ${from} AND d."eventId" < ${to} AND ${deliverable}`
          : Prisma.sql`SELECT e."id" AS "eventId", ep."id" AS "endpointId" FROM "WebhookEvent" e
                       JOIN "WebhookEndpoint" ep ON ep."id" = ${endpoint.id}::uuid
                       WHERE e."type" = ANY (ep."eventTypes") AND e."testEndpointId" IS NULL AND ${reaches("e", "ep")}
                         AND e."id" >= ${from} AND e."id" < ${to}`;
        return queueReplays(pairs, actor, {
          since: since.toISOString(),
          until: until.toISOString(),
          failedOnly: input.failedOnly,
        });
      },
    };
  }

  return {
    ...scoped(),
    /** The same service over account `accountId`'s endpoints: any other id is not_found. */
    forAccount: (accountId: string) => scoped(accountId),
    /** What the dispatcher calls when it gives up on an endpoint (actor `system`). */
    async disableAutomatically(request: AutomaticDisable): Promise<void> {
      const reason =
        request.reason === "gone"
          ? "The endpoint answered 410 Gone."
          : `Every attempt failed since ${request.since?.toISOString() ?? "long ago"}.`;
      await disable(request.endpointId, reason, SYSTEM_ACTOR);
      deps.logger.warn({ endpointId: request.endpointId, reason }, "webhook endpoint disabled");
    },
  };
}

/** The endpoint service of one scope: the store's (`runtime.webhooks`) or an account's (`forAccount`). */
export type WebhookEndpoints = ReturnType<ReturnType<typeof createWebhookEndpoints>["forAccount"]>;
