/**
 * API key lifecycle and verification (docs/contract.md sections 2 and 7); `forAccount` is one account's keys
 * (docs/architecture.md "Accounts scoped in core"). Verification caches: verifier.ts.
 */
import {
  type ApiKeyCreate,
  type ApiKeyScope,
  AppError,
  type AuditAction,
  DEFAULT_API_KEY_SCOPES,
  type PlanName,
  type PortalKeyCreate,
} from "@petstore/contracts";
import type { ApiKey, Prisma } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { type BanFacts, recordBan } from "./bans.ts";
import { displayPrefix, generateApiKey, hashApiKey } from "./format.ts";
import { assertLimits, liveWhere } from "./policy.ts";
import { type ApiCaller, createKeyVerifier } from "./verifier.ts";
import {
  type ApiKeyDetail,
  type ApiKeyView,
  apiKeyState,
  auditView,
  type IssuedApiKey,
  scopesOf,
  toView,
} from "./view.ts";

export type { ApiCaller, KeyCheck, LookupClaim } from "./verifier.ts";

export function createApiKeyService({ prisma, queryRows, config, clock, logger, dependencies }: CoreDeps) {
  const verifier = createKeyVerifier({
    prisma,
    queryRows,
    environment: config.environment,
    clock,
    logger,
    ...(dependencies ? { dependencies } : {}),
  });

  const notFound = (ref: string) => new AppError("not_found", `No API key ${ref}.`);

  /** The key with id or display prefix `ref`, within account `accountId`'s keys when given. */
  async function findByRef(tx: Prisma.TransactionClient, ref: string, accountId?: string): Promise<ApiKey> {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref);
    const inScope = accountId ? { accountId } : {};
    const matches = isUuid
      ? await tx.apiKey.findMany({ where: { id: ref, ...inScope } })
      : await tx.apiKey.findMany({ where: { prefix: ref, ...inScope }, take: 2 });
    if (matches.length > 1)
      throw new AppError("validation_failed", `Prefix ${ref} matches several keys; use the id.`);
    const key = matches[0];
    if (!key) throw notFound(ref);
    return key;
  }

  /** The refusal of rolling `old` again, naming its successor and the newest key of its lineage. */
  async function alreadyRolled(tx: Prisma.TransactionClient, old: ApiKey): Promise<AppError> {
    const successor = await tx.apiKey.findUnique({ where: { id: old.rolledToId ?? "" } });
    let newest = successor;
    // A lineage is a chain (rolledToId is unique); the bound only guards against a corrupted cycle.
    for (let step = 0; newest?.rolledToId && step < 1000; step++) {
      newest = await tx.apiKey.findUnique({ where: { id: newest.rolledToId } });
    }
    const rolledTo = successor ? `${successor.prefix}…` : "another key";
    const instead =
      newest && newest.id !== successor?.id ? `${newest.prefix}… (the newest key of its lineage)` : rolledTo;
    return new AppError(
      "conflict",
      `Key ${old.prefix}… was already rolled to ${rolledTo}; roll ${instead} instead.`,
    );
  }

  const forget = (keyId: string) => verifier.forget(keyId);
  /** Audited change of key `ref` (of account `accountId` if given) to `data(before, now)`. @throws not_found. */
  async function changeKey(
    ref: string,
    actor: Actor,
    action: AuditAction,
    data: (before: ApiKey, now: Date) => Prisma.ApiKeyUncheckedUpdateInput,
    accountId?: string,
  ): Promise<ApiKeyView> {
    const now = clock();
    const row = await prisma.$transaction(async (tx) => {
      const before = await findByRef(tx, ref, accountId);
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
      scopes?: readonly ApiKeyScope[] | undefined;
      expiresAt: Date | null;
      accountId?: string | null;
      allowedIps?: readonly string[];
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
        scopes: [...(input.scopes ?? DEFAULT_API_KEY_SCOPES)],
        expiresAt: input.expiresAt,
        accountId: input.accountId ?? null,
        allowedIps: [...(input.allowedIps ?? [])],
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
    scopes: scopesOf(row),
    expiresAt: row.expiresAt?.toISOString() ?? null,
  });

  const auditCreated = (tx: Prisma.TransactionClient, row: ApiKey, actor: Actor) =>
    writeAudit(tx, {
      actor,
      action: "apiKey.create",
      entityType: "apiKey",
      entityId: row.id,
      after: auditView(row),
    });

  /** Inserts a new key and audits its creation. @returns it with its secret. */
  async function issueKey(
    tx: Prisma.TransactionClient,
    input: Parameters<typeof insertKey>[1],
    actor: Actor,
  ): Promise<IssuedApiKey> {
    const { row, secret } = await insertKey(tx, input, actor);
    await auditCreated(tx, row, actor);
    return issued(row, secret);
  }

  const expiryOf = (now: Date, seconds: number | undefined) =>
    seconds ? new Date(now.getTime() + seconds * 1000) : null;

  /**
   * Issues a key of account `accountId` on its plan, under the account's row lock (so the key cap holds).
   * @throws AppError not_found; conflict when the account is suspended, at its cap, or without limits.
   */
  async function createInAccount(accountId: string, input: PortalKeyCreate, actor: Actor) {
    const now = clock();
    return prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "Account" WHERE "id" = ${accountId}::uuid FOR UPDATE`;
      const account = await tx.account.findUnique({ where: { id: accountId }, include: { plan: true } });
      if (!account) throw new AppError("not_found", `No account ${accountId}.`);
      if (account.suspendedAt)
        throw new AppError("conflict", "This account is suspended: its keys cannot be used or created.");
      if (
        (account.perMinute ?? account.plan.perMinute) === null ||
        (account.perDay ?? account.plan.perDay) === null
      )
        throw new AppError(
          "conflict",
          `The ${account.planName} plan has no limits of its own: ask the store to set this account's limits first.`,
        );
      const cap = account.plan.maxKeys;
      if (cap !== null) {
        const live = await tx.apiKey.count({ where: { accountId, AND: [liveWhere(now)] } });
        if (live >= cap)
          throw new AppError(
            "conflict",
            `The ${account.planName} plan allows ${cap} live keys and this account has ${live}: revoke one first.`,
          );
      }
      const { name, scopes, expiresInSeconds } = input;
      const expiresAt = expiryOf(now, expiresInSeconds);
      return issueKey(tx, { name, plan: account.planName, scopes, expiresAt, accountId }, actor);
    });
  }

  /** The keys of consumer account `accountId`, newest first. */
  async function listOfAccount(accountId: string): Promise<ApiKeyView[]> {
    const now = clock();
    const rows = await prisma.apiKey.findMany({
      where: { accountId },
      include: { plan: true },
      orderBy: { createdAt: "desc" },
    });
    return rows.map((r) => toView(r, now));
  }

  /** One key (of account `accountId` when given) with its lineage. @throws AppError not_found. */
  async function get(id: string, accountId?: string): Promise<ApiKeyDetail> {
    const row = await prisma.apiKey.findFirst({
      where: { id, ...(accountId ? { accountId } : {}) },
      include: { plan: true },
    });
    if (!row) throw notFound(id);
    const link = { id: true, prefix: true, accountId: true } as const;
    const [from, to] = await Promise.all([
      prisma.apiKey.findUnique({ where: { rolledToId: id }, select: link }),
      row.rolledToId ? prisma.apiKey.findUnique({ where: { id: row.rolledToId }, select: link }) : null,
    ]);
    // Within an account, only keys of that account are named (a roll keeps the account, so this is a guard).
    const named = (k: typeof from) =>
      k && (!accountId || k.accountId === accountId) ? { id: k.id, prefix: k.prefix } : null;
    return { ...toView(row, clock()), rolledFrom: named(from), rolledTo: named(to) };
  }

  /** Revokes by id or display prefix, idempotently. @throws AppError not_found. */
  const revoke = (ref: string, actor: Actor, accountId?: string): Promise<ApiKeyView> =>
    changeKey(
      ref,
      actor,
      "apiKey.revoke",
      (before, now) => ({ revokedAt: before.revokedAt ?? now }),
      accountId,
    );

  /**
   * A new key like `ref`, which ends after `graceSeconds` (docs/contract.md section 2, "Roll"); rolled once.
   * @throws AppError not_found; conflict (rolled, or its account suspended); validation_failed (revoked, expired).
   */
  async function roll(ref: string, graceSeconds: number, actor: Actor, accountId?: string) {
    const now = clock();
    const result = await prisma.$transaction(async (tx) => {
      const { id } = await findByRef(tx, ref, accountId);
      await tx.$queryRaw`SELECT "id" FROM "ApiKey" WHERE "id" = ${id}::uuid FOR UPDATE`;
      const old = await tx.apiKey.findUniqueOrThrow({ where: { id }, include: { account: true } });
      if (old.rolledToId) throw await alreadyRolled(tx, old);
      if (old.account?.suspendedAt)
        throw new AppError("conflict", "This account is suspended: its keys cannot be used or rolled.");
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
          scopes: scopesOf(old),
          expiresAt: old.expiresAt,
          accountId: old.accountId,
          allowedIps: old.allowedIps,
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
      await auditCreated(tx, row, actor);
      return { old, row, secret };
    });
    forget(result.old.id);
    return issued(result.row, result.secret);
  }

  const changeAllowlist = (ref: string, allowedIps: readonly string[], actor: Actor, accountId?: string) =>
    changeKey(ref, actor, "apiKey.allowlist", () => ({ allowedIps: [...allowedIps] }), accountId);

  return {
    /** What memory says about a bearer token, without I/O (verifier.ts `peek`). */
    peek: verifier.peek,
    /** Reads a bearer token's key from the database, batched (verifier.ts `lookup`). @throws when unreachable. */
    lookup: verifier.lookup,
    /** Claims the look-up of a key `peek` did not know, for the requests that arrive meanwhile (verifier.ts). */
    claim: verifier.claim,
    /** A token's caller as this instance last read it, for logging a request it could not verify (verifier.ts). */
    lastKnown: verifier.lastKnown,
    /** Keys read from the database to verify bearer tokens since the process started (verifier.ts). */
    keysRead: verifier.keysRead,

    /** A bearer token's caller, or `undefined` for a bad key. @throws when the database is unreachable. */
    async authenticate(token: string): Promise<ApiCaller | undefined> {
      const check = verifier.peek(token);
      if (check.kind === "valid") return check.caller;
      if (check.kind === "invalid") return undefined;
      return verifier.lookup(token);
    },

    /** Issues a key; the secret is in the result only. @throws AppError validation_failed (policy.ts). */
    async create(input: ApiKeyCreate, actor: Actor): Promise<IssuedApiKey> {
      assertLimits(input);
      const expiresAt = expiryOf(clock(), input.expiresInSeconds);
      return prisma.$transaction((tx) => issueKey(tx, { ...input, expiresAt }, actor));
    },

    createInAccount,
    listOfAccount,
    get,
    revoke,
    roll,

    /** Account `accountId`'s keys: any other id is not_found. `require(id)` resolves to `id` if it is one. */
    forAccount(accountId: string) {
      return {
        list: () => listOfAccount(accountId),
        get: (id: string) => get(id, accountId),
        create: (input: PortalKeyCreate, actor: Actor) => createInAccount(accountId, input, actor),
        roll: (id: string, graceSeconds: number, actor: Actor) => roll(id, graceSeconds, actor, accountId),
        revoke: (id: string, actor: Actor) => revoke(id, actor, accountId),
        changeAllowlist: (id: string, allowedIps: readonly string[], actor: Actor) =>
          changeAllowlist(id, allowedIps, actor, accountId),
        async require(id: string): Promise<string> {
          const row = await prisma.apiKey.findFirst({ where: { id, accountId }, select: { id: true } });
          if (!row) throw notFound(id);
          return id;
        },
      };
    },

    /** Drops keys `ids` from this instance's verification cache (the others drop them within 5 s). */
    forget(ids: readonly string[]): void {
      for (const id of ids) forget(id);
    },

    /** All keys, newest first. */
    async list(): Promise<ApiKeyView[]> {
      const now = clock();
      const rows = await prisma.apiKey.findMany({ include: { plan: true }, orderBy: { createdAt: "desc" } });
      return rows.map((r) => toView(r, now));
    },

    /** Changes plan and/or limits (null: the plan's). @throws AppError not_found, validation_failed. */
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

    /** Replaces a key's scopes (docs/contract.md section 2, "Scopes"). @throws AppError not_found. */
    async changeScopes(ref: string, scopes: readonly ApiKeyScope[], actor: Actor): Promise<ApiKeyView> {
      return changeKey(ref, actor, "apiKey.scopes", () => ({ scopes: [...scopes] }));
    },

    /**
     * Replaces a key's IP allowlist (normalized entries; empty: from anywhere), audited as `apiKey.allowlist`;
     * every instance applies it within 5 s (docs/contract.md section 2, "IP allowlists"). @throws not_found.
     */
    changeAllowlist: (ref: string, allowedIps: readonly string[], actor: Actor, accountId?: string) =>
      changeAllowlist(ref, allowedIps, actor, accountId),

    /** Records the limiter's ban of subject `subjectId` (a key, or an account), audited (bans.ts). */
    async recordBan(subjectId: string, until: Date, ban?: BanFacts): Promise<void> {
      for (const id of await recordBan(prisma, subjectId, until, ban)) forget(id);
    },

    /** Clears the key's ban (its account's keys' too), audited; the caller lifts it in the limiter's store. */
    async clearBan(ref: string, actor: Actor): Promise<ApiKeyView> {
      const view = await changeKey(ref, actor, "apiKey.unban", () => ({ bannedUntil: null }));
      if (view.accountId) {
        const others = await prisma.apiKey.findMany({
          where: { accountId: view.accountId, bannedUntil: { not: null } },
          select: { id: true },
        });
        await prisma.apiKey.updateMany({ where: { accountId: view.accountId }, data: { bannedUntil: null } });
        for (const { id } of others) forget(id);
      }
      return view;
    },

    /** The key id and rate-limit subject (its account, else itself) of id or prefix `ref`. @throws not_found. */
    async resolveId(ref: string): Promise<{ id: string; rateLimitSubject: string }> {
      const key = await findByRef(prisma as unknown as Prisma.TransactionClient, ref);
      return { id: key.id, rateLimitSubject: key.accountId ?? key.id };
    },

    /**
     * Whose monthly quota a key counts against and how large it is: its account's (its own, else its plan's),
     * else its plan's; `perMonth` null: none. @throws AppError not_found.
     */
    async quotaOf(ref: string): Promise<{ rateLimitSubject: string; perMonth: number | null }> {
      const key = await findByRef(prisma as unknown as Prisma.TransactionClient, ref);
      const [plan, account] = await Promise.all([
        prisma.plan.findUnique({ where: { name: key.planName }, select: { perMonth: true } }),
        key.accountId
          ? prisma.account.findUnique({ where: { id: key.accountId }, select: { perMonth: true } })
          : null,
      ]);
      return {
        rateLimitSubject: key.accountId ?? key.id,
        perMonth: account?.perMonth ?? plan?.perMonth ?? null,
      };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
