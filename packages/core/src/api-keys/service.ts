/**
 * API key lifecycle and verification (docs/contract.md section 2): issue, list, revoke, roll, change plan,
 * and `authenticate` for the request path.
 *
 * `authenticate` rejects malformed keys without I/O, then caches a verified key in-process for at most
 * 4 s (so a revocation on another instance takes effect within 5 s), drops the entry at once on the
 * instance that revokes, and writes `lastUsedAt` at most once a minute per key.
 */
import { type ApiKeyCreate, AppError, type PlanName } from "@petstore/contracts";
import type { ApiKey, Prisma } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { type BanFacts, recordBan } from "./bans.ts";
import { displayPrefix, generateApiKey, hashApiKey, parseApiKey } from "./format.ts";
import { assertLimits, effectiveLimits, isLive } from "./policy.ts";
import {
  type ApiKeyView,
  apiKeyState,
  auditView,
  type IssuedApiKey,
  type KeyWithPlan,
  toView,
} from "./view.ts";

const CACHE_TTL_MS = 4_000;
const LAST_USED_INTERVAL_MS = 60_000;

/** The caller resolved from a valid key: what rate limiting and logging need. */
export interface ApiCaller {
  keyId: string;
  prefix: string;
  plan: PlanName;
  /** Effective limits: the key's custom limits, else its plan's. */
  perMinute: number;
  perDay: number;
}

export function createApiKeyService({ prisma, config, clock, logger }: CoreDeps) {
  const cache = new Map<string, { key: KeyWithPlan; until: number }>();
  const lastUsedWritten = new Map<string, number>();

  const notFound = (ref: string) => new AppError("not_found", `No API key ${ref}.`);

  async function findByRef(tx: Prisma.TransactionClient, ref: string): Promise<ApiKey> {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref);
    const matches = isUuid
      ? await tx.apiKey.findMany({ where: { id: ref } })
      : await tx.apiKey.findMany({ where: { prefix: ref }, take: 2 });
    if (matches.length > 1)
      throw new AppError("validation_failed", `Prefix ${ref} matches several keys; use the id.`);
    const key = matches[0];
    if (!key) throw notFound(ref);
    return key;
  }

  function forget(keyId: string) {
    for (const [hash, entry] of cache) if (entry.key.id === keyId) cache.delete(hash);
  }
  /**
   * The one shape of an audited key change: find by id or prefix, update with `data(before)`, audit
   * before/after, drop the cached entry; `data` gets the key before and the instant of the change. @throws AppError not_found, or what `data` throws.
   */
  async function changeKey(
    ref: string,
    actor: Actor,
    action: string,
    data: (before: ApiKey, now: Date) => Prisma.ApiKeyUncheckedUpdateInput,
  ): Promise<ApiKeyView> {
    const now = clock();
    const row = await prisma.$transaction(async (tx) => {
      const before = await findByRef(tx, ref);
      const after = await tx.apiKey.update({
        where: { id: before.id },
        data: data(before, now),
        include: { plan: true },
      });
      await writeAudit(tx, {
        actor,
        action,
        entityType: "apiKey",
        entityId: before.id,
        before: auditView(before),
        after: auditView(after),
      });
      return after;
    });
    forget(row.id);
    return toView(row, now);
  }

  async function insertKey(
    tx: Prisma.TransactionClient,
    input: {
      name: string;
      plan: PlanName;
      perMinute?: number | null;
      perDay?: number | null;
      expiresAt: Date | null;
    },
    actor: Actor,
  ): Promise<{ row: ApiKey; secret: string }> {
    const secret = generateApiKey(config.environment);
    const row = await tx.apiKey.create({
      data: {
        hash: hashApiKey(secret),
        prefix: displayPrefix(secret),
        name: input.name,
        planName: input.plan,
        environment: config.environment,
        perMinute: input.perMinute ?? null,
        perDay: input.perDay ?? null,
        expiresAt: input.expiresAt,
        createdBy: actor,
      },
    });
    return { row, secret };
  }

  const issued = (row: ApiKey, secret: string): IssuedApiKey => ({
    id: row.id,
    key: secret,
    prefix: row.prefix,
    plan: row.planName,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  });

  return {
    /**
     * Resolves a bearer token to its caller, or `undefined` when the key is malformed, unknown, revoked,
     * expired or of the other deployment. Never throws for a bad key.
     */
    async authenticate(token: string): Promise<ApiCaller | undefined> {
      if (parseApiKey(token) !== config.environment) return undefined;
      const hash = hashApiKey(token);
      const nowMs = clock().getTime();
      const cached = cache.get(hash);
      let key = cached && cached.until > nowMs ? cached.key : undefined;
      if (!key) {
        const row = await prisma.apiKey.findUnique({ where: { hash }, include: { plan: true } });
        if (!row) return undefined;
        key = row;
        cache.set(hash, { key: row, until: nowMs + CACHE_TTL_MS });
      }
      const now = new Date(nowMs);
      if (key.environment !== config.environment) return undefined;
      if (!isLive(key, now)) return undefined;
      const { perMinute, perDay } = effectiveLimits(key);
      if (perMinute === null || perDay === null) return undefined;
      if (nowMs - (lastUsedWritten.get(key.id) ?? 0) >= LAST_USED_INTERVAL_MS) {
        lastUsedWritten.set(key.id, nowMs);
        prisma.apiKey
          .update({ where: { id: key.id }, data: { lastUsedAt: now } })
          .catch((error: unknown) =>
            logger.warn({ err: error, keyId: key?.id }, "could not record lastUsedAt"),
          );
      }
      return { keyId: key.id, prefix: key.prefix, plan: key.planName, perMinute, perDay };
    },

    /**
     * Issues a key; the secret is in the result and nowhere else.
     * @throws AppError validation_failed when the limits break the rule (policy.ts `assertLimits`).
     */
    async create(input: ApiKeyCreate, actor: Actor): Promise<IssuedApiKey> {
      assertLimits(input);
      const now = clock();
      return prisma.$transaction(async (tx) => {
        const { row, secret } = await insertKey(
          tx,
          {
            ...input,
            expiresAt: input.expiresInSeconds
              ? new Date(now.getTime() + input.expiresInSeconds * 1000)
              : null,
          },
          actor,
        );
        await writeAudit(tx, {
          actor,
          action: "apiKey.create",
          entityType: "apiKey",
          entityId: row.id,
          after: auditView(row),
        });
        return issued(row, secret);
      });
    },

    /** All keys, newest first. */
    async list(): Promise<ApiKeyView[]> {
      const now = clock();
      const rows = await prisma.apiKey.findMany({ include: { plan: true }, orderBy: { createdAt: "desc" } });
      return rows.map((r) => toView(r, now));
    },

    /** One key by id. @throws AppError not_found. */
    async get(id: string): Promise<ApiKeyView> {
      const row = await prisma.apiKey.findUnique({ where: { id }, include: { plan: true } });
      if (!row) throw notFound(id);
      return toView(row, clock());
    },

    /** Revokes by id or display prefix; idempotent. @throws AppError not_found. */
    async revoke(ref: string, actor: Actor): Promise<ApiKeyView> {
      return changeKey(ref, actor, "apiKey.revoke", (before, now) => ({
        revokedAt: before.revokedAt ?? now,
      }));
    },

    /**
     * Rotation: a new key with the same name, plan, limits and expiry; the old one expires after
     * `graceSeconds` (0 = now). @throws AppError not_found, validation_failed for a revoked/expired key.
     */
    async roll(ref: string, graceSeconds: number, actor: Actor): Promise<IssuedApiKey> {
      const now = clock();
      const result = await prisma.$transaction(async (tx) => {
        const old = await findByRef(tx, ref);
        const state = apiKeyState(old, now);
        if (state === "revoked" || state === "expired") {
          throw new AppError("validation_failed", `Key ${old.prefix} is ${state} and cannot be rolled.`);
        }
        const { row, secret } = await insertKey(
          tx,
          {
            name: old.name,
            plan: old.planName,
            perMinute: old.perMinute,
            perDay: old.perDay,
            expiresAt: old.expiresAt,
          },
          actor,
        );
        const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
        const oldAfter = await tx.apiKey.update({
          where: { id: old.id },
          data: {
            rolledToId: row.id,
            ...(graceSeconds === 0 ? { revokedAt: now } : {}),
            expiresAt: old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd,
          },
        });
        await writeAudit(tx, {
          actor,
          action: "apiKey.roll",
          entityType: "apiKey",
          entityId: old.id,
          before: auditView(old),
          after: auditView(oldAfter),
        });
        await writeAudit(tx, {
          actor,
          action: "apiKey.create",
          entityType: "apiKey",
          entityId: row.id,
          after: auditView(row),
        });
        return { old, row, secret };
      });
      forget(result.old.id);
      return issued(result.row, result.secret);
    },

    /**
     * Changes plan and/or custom limits (null clears a custom limit).
     * @throws AppError not_found; validation_failed when the limits would break the rule (`assertLimits`).
     */
    async update(
      input: { id: string; plan?: PlanName; perMinute?: number | null; perDay?: number | null },
      actor: Actor,
    ): Promise<ApiKeyView> {
      return changeKey(input.id, actor, "apiKey.update", (before) => {
        const plan = input.plan ?? before.planName;
        const perMinute = input.perMinute !== undefined ? input.perMinute : before.perMinute;
        const perDay = input.perDay !== undefined ? input.perDay : before.perDay;
        assertLimits({ plan, perMinute, perDay });
        return { planName: plan, perMinute, perDay };
      });
    },

    /** Records a ban decided by the rate limiter, audited with the system as actor (see bans.ts). */
    async recordBan(keyId: string, until: Date, ban?: BanFacts): Promise<void> {
      await recordBan(prisma, keyId, until, ban);
      forget(keyId);
    },

    /** Clears `bannedUntil` and audits it; the caller also lifts the ban in the rate-limit store. */
    async clearBan(ref: string, actor: Actor): Promise<ApiKeyView> {
      return changeKey(ref, actor, "apiKey.unban", () => ({ bannedUntil: null }));
    },

    /** Resolves an id or display prefix to the key id. @throws AppError not_found. */
    async resolveId(ref: string): Promise<string> {
      return (await findByRef(prisma as unknown as Prisma.TransactionClient, ref)).id;
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
