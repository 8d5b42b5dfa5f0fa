/**
 * The delivery queue's statements (docs/architecture.md, "Webhook delivery" and "Decisions"). A due
 * delivery is claimed by one instance with `FOR UPDATE SKIP LOCKED`: the claim stamps a random token and moves
 * `nextAttemptAt` past the attempt's longest duration (a lease), so a delivery whose instance died mid-attempt
 * becomes due again once the lease runs out, and no other instance attempts it meanwhile. The outcome is written
 * only while the token still matches. Times are the database's clock (`now()`), the same for every instance.
 */
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@petstore/db";

/** A claimed delivery, with what its attempt needs. */
export interface ClaimedDelivery {
  /** The delivery is the pair (eventId, endpointId). */
  eventId: string;
  endpointId: string;
  claim: string;
  /** Attempts made so far, this one included. */
  attempts: number;
  /** Failed attempts since queued or replayed. */
  round: number;
  type: string;
  occurredAt: Date;
  /** The body's `data` as stored (compact JSON text). */
  data: string;
  url: string;
  secrets: string[];
}

/** Columns every claim returns, joined from the event and the endpoint. */
const claimedColumns = Prisma.sql`
  c."eventId", c."endpointId"::text AS "endpointId", c."claim"::text AS "claim",
  c."attempts", c."round", e."type", e."occurredAt", e."data", ep."url",
  CASE WHEN ep."previousSecret" IS NOT NULL AND ep."previousSecretExpiresAt" > now()
       THEN ARRAY[ep."secret", ep."previousSecret"] ELSE ARRAY[ep."secret"] END AS "secrets"`;

/**
 * Claims up to `limit` due deliveries of enabled endpoints, oldest due first, at most `perEndpoint` minus
 * `busy[endpoint]` per endpoint (so one slow endpoint cannot take every slot of this instance).
 * @param leaseMs how long the claim holds (longer than an attempt can take).
 */
export async function claimDue(
  prisma: PrismaClient,
  options: { limit: number; perEndpoint: number; busy: Map<string, number>; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const claim = randomUUID();
  return prisma.$queryRaw<ClaimedDelivery[]>`
    WITH picked AS (
      SELECT d."eventId", d."endpointId"
      FROM "WebhookEndpoint" ep
      LEFT JOIN unnest(${[...options.busy.keys()]}::uuid[], ${[...options.busy.values()]}::int[]) AS b("endpointId", "n")
        ON b."endpointId" = ep."id"
      CROSS JOIN LATERAL (
        SELECT d."eventId", d."endpointId", d."nextAttemptAt" FROM "WebhookDelivery" d
        WHERE d."endpointId" = ep."id" AND d."state" = 'pending' AND d."nextAttemptAt" <= now()
        ORDER BY d."nextAttemptAt"
        LIMIT greatest(${options.perEndpoint}::int - coalesce(b."n", 0), 0)
        FOR UPDATE SKIP LOCKED
      ) d
      WHERE ep."enabled"
      ORDER BY d."nextAttemptAt"
      LIMIT ${options.limit}::int
    ), c AS (
      UPDATE "WebhookDelivery" d
      SET "claim" = ${claim}::uuid, "attempts" = d."attempts" + 1,
          "nextAttemptAt" = now() + ${options.leaseMs}::int * interval '1 millisecond'
      FROM picked WHERE d."eventId" = picked."eventId" AND d."endpointId" = picked."endpointId"
      RETURNING d.*
    )
    SELECT ${claimedColumns}
    FROM c JOIN "WebhookEvent" e ON e."id" = c."eventId" JOIN "WebhookEndpoint" ep ON ep."id" = c."endpointId"`;
}

/** Claims one delivery whatever its endpoint's state (a test message is attempted at once). */
export async function claimOne(
  prisma: PrismaClient,
  delivery: { eventId: string; endpointId: string },
  leaseMs: number,
): Promise<ClaimedDelivery | undefined> {
  const claim = randomUUID();
  const [row] = await prisma.$queryRaw<ClaimedDelivery[]>`
    WITH c AS (
      UPDATE "WebhookDelivery" d
      SET "claim" = ${claim}::uuid, "attempts" = d."attempts" + 1,
          "nextAttemptAt" = now() + ${leaseMs}::int * interval '1 millisecond'
      WHERE d."eventId" = ${delivery.eventId} AND d."endpointId" = ${delivery.endpointId}::uuid AND d."state" = 'pending'
      RETURNING d.*
    )
    SELECT ${claimedColumns}
    FROM c JOIN "WebhookEvent" e ON e."id" = c."eventId" JOIN "WebhookEndpoint" ep ON ep."id" = c."endpointId"`;
  return row;
}

/** What became of an attempt, for `recordOutcomes`. */
export interface Outcome {
  claimed: Pick<ClaimedDelivery, "eventId" | "endpointId" | "claim">;
  succeeded: boolean;
  /** Delay before the next attempt; undefined: no further attempt (success, or the schedule is used up). */
  retryInMs?: number;
  startedAt: Date;
  durationMs: number;
  status?: number;
  error?: string;
  excerpt?: string;
  /** The request's headers as sent (sender.ts `AttemptResult`); undefined when nothing was sent. */
  requestHeaders?: Record<string, string>;
}

/** Whether an outcome was written, and its endpoint's `failingSince` from before the statement. */
export interface Recorded {
  written: boolean;
  failingSince: Date | null;
}

/**
 * Writes the outcomes of several attempts in one statement: each delivery's new state (pending again with its
 * next attempt time, succeeded, or failed; failed too when its endpoint was disabled meanwhile), each attempt's
 * log row, and each endpoint's `failingSince` (set by a failure when unset, cleared by a success; the last
 * outcome of an endpoint in `outcomes` decides). An outcome whose claim no longer holds (its lease ran out and
 * another instance took over) writes nothing. @returns one `Recorded` per outcome, in order.
 */
export async function recordOutcomes(
  prisma: PrismaClient,
  outcomes: readonly Outcome[],
): Promise<Recorded[]> {
  const state = (o: Outcome) =>
    o.succeeded ? "succeeded" : o.retryInMs === undefined ? "failed" : "pending";
  const lastByEndpoint = new Map(outcomes.map((o) => [o.claimed.endpointId, o.succeeded]));
  const rows = await prisma.$queryRaw<
    { eventId: string | null; endpointId: string; failingSince: Date | null }[]
  >`
    WITH o AS (
      SELECT * FROM unnest(
        ${outcomes.map((o) => o.claimed.eventId)}::text[], ${outcomes.map((o) => o.claimed.endpointId)}::uuid[],
        ${outcomes.map((o) => o.claimed.claim)}::uuid[],
        ${outcomes.map(state)}::text[], ${outcomes.map((o) => o.retryInMs ?? 0)}::int[],
        ${outcomes.map((o) => o.startedAt)}::timestamptz[], ${outcomes.map((o) => o.durationMs)}::int[],
        ${outcomes.map((o) => o.succeeded)}::boolean[], ${outcomes.map((o) => o.status ?? null)}::int[],
        ${outcomes.map((o) => o.error ?? null)}::text[], ${outcomes.map((o) => o.excerpt ?? null)}::text[],
        ${outcomes.map((o) => (o.requestHeaders ? JSON.stringify(o.requestHeaders) : null))}::text[]
      ) AS o("eventId", "endpointId", "claim", "state", "retryMs", "startedAt", "durationMs", "succeeded", "status", "error", "excerpt", "headers")
    ), d AS (
      UPDATE "WebhookDelivery" d
      SET "state" = (CASE WHEN o."state" = 'pending' AND NOT ep."enabled" THEN 'failed' ELSE o."state" END)::"WebhookDeliveryState",
          "round" = d."round" + 1,
          "nextAttemptAt" = CASE WHEN o."state" = 'pending' AND ep."enabled"
                                 THEN now() + o."retryMs" * interval '1 millisecond' END,
          "claim" = NULL
      FROM o, "WebhookEndpoint" ep
      WHERE d."eventId" = o."eventId" AND d."endpointId" = o."endpointId" AND d."claim" = o."claim"
        AND ep."id" = d."endpointId"
      RETURNING d."eventId", d."endpointId", d."attempts", o."startedAt", o."durationMs", o."succeeded",
                o."status", o."error", o."excerpt", o."headers"
    ), a AS (
      INSERT INTO "WebhookAttempt" ("eventId", "endpointId", "number", "startedAt", "durationMs",
                                    "succeeded", "status", "error", "responseExcerpt", "requestHeaders")
      SELECT "eventId", "endpointId", "attempts", "startedAt", "durationMs", "succeeded", "status", "error", "excerpt",
             "headers"::jsonb
      FROM d
      RETURNING 1
    ), e AS (
      SELECT * FROM unnest(${[...lastByEndpoint.keys()]}::uuid[], ${[...lastByEndpoint.values()]}::boolean[])
        AS e("id", "succeeded")
    ), endpoint_update AS (
      UPDATE "WebhookEndpoint" ep
      SET "failingSince" = CASE WHEN e."succeeded" THEN NULL ELSE now() END
      FROM e
      WHERE ep."id" = e."id" AND EXISTS (SELECT 1 FROM d WHERE d."endpointId" = e."id")
        AND (CASE WHEN e."succeeded" THEN ep."failingSince" IS NOT NULL ELSE ep."failingSince" IS NULL END)
      RETURNING 1
    )
    SELECT d."eventId", ep."id"::text AS "endpointId", ep."failingSince"
    FROM "WebhookEndpoint" ep LEFT JOIN d ON d."endpointId" = ep."id"
    WHERE ep."id" IN (SELECT "id" FROM e)`;
  const written = new Set(rows.flatMap((r) => (r.eventId === null ? [] : [`${r.eventId} ${r.endpointId}`])));
  const failingSince = new Map(rows.map((r) => [r.endpointId, r.failingSince]));
  return outcomes.map((o) => ({
    written: written.has(`${o.claimed.eventId} ${o.claimed.endpointId}`),
    failingSince: failingSince.get(o.claimed.endpointId) ?? null,
  }));
}

/** Ends the pending deliveries of an endpoint that was disabled (attempts in flight finish on their own). */
export async function failPendingOf(db: Prisma.TransactionClient, endpointId: string): Promise<number> {
  return db.$executeRaw`
    UPDATE "WebhookDelivery" SET "state" = 'failed', "nextAttemptAt" = NULL
    WHERE "endpointId" = ${endpointId}::uuid AND "state" = 'pending' AND "claim" IS NULL`;
}

/** Deliveries waiting to be sent, and how long the oldest has waited (docs/operations.md "Metrics"). */
export interface QueueStats {
  /** Pending deliveries (due now or later, retries included), all instances. */
  pending: number;
  /** Seconds since the oldest pending delivery was queued (or replayed); 0 when none. */
  oldestPendingAgeSeconds: number;
}

export async function queueStats(prisma: PrismaClient): Promise<QueueStats> {
  // Per endpoint, through the claim index (endpointId, state, …): there are few endpoints and no index on state alone.
  const [row] = await prisma.$queryRaw<{ pending: number; age: number | null }[]>`
    SELECT coalesce(sum(q."n"), 0)::int AS "pending",
           extract(epoch FROM now() - min(q."oldest"))::float8 AS "age"
    FROM "WebhookEndpoint" ep CROSS JOIN LATERAL (
      SELECT count(*) AS "n", min(d."queuedAt") AS "oldest" FROM "WebhookDelivery" d
      WHERE d."endpointId" = ep."id" AND d."state" = 'pending'
    ) q`;
  return { pending: row?.pending ?? 0, oldestPendingAgeSeconds: Math.max(0, row?.age ?? 0) };
}

/** Hands a claimed delivery back unattempted (its attempt was cut by a stop): due at once, for any instance. */
export async function releaseClaim(
  prisma: PrismaClient,
  claimed: Pick<ClaimedDelivery, "eventId" | "endpointId" | "claim">,
): Promise<void> {
  await prisma.$executeRaw`
    UPDATE "WebhookDelivery" SET "claim" = NULL, "nextAttemptAt" = now(), "attempts" = "attempts" - 1
    WHERE "eventId" = ${claimed.eventId} AND "endpointId" = ${claimed.endpointId}::uuid
      AND "claim" = ${claimed.claim}::uuid`;
}
