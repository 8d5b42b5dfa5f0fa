/**
 * Consumer accounts (docs/contract.md section 7): an API consumer organization whose members manage its keys in
 * the developer portal. Admins create one with its owner's invitation (mailed when SMTP is configured), list and read them, change their plan
 * (the plan of every key of the account with it) and suspend or resume them; a suspended account's keys are
 * refused like revoked ones (api-keys/verifier.ts) within the key cache's 5 s. Owners and admins change a
 * member's role and remove members; an account always keeps an owner: a demotion or removal first locks the rows
 * of the account's owners (`SELECT ... FOR UPDATE`, in id order), so concurrent ones queue and each counts what
 * the others left, as the users service does for the last admin. Every change is audited.
 */
import type { AccountCreate, AccountListFilter, MemberRole, PlanName } from "@petstore/contracts";
import { AppError } from "@petstore/contracts";
import { Prisma, type User } from "@petstore/db";
import { assertLimits } from "../api-keys/policy.ts";
import { type AuditEntry, writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { likeLiteral } from "../like.ts";
import type { Mailer } from "../mail.ts";
import { utcDay } from "../utc-day.ts";
import { type IssuedInvitation, insertInvitation, invitationMail } from "./invitations.ts";

export interface AccountView {
  id: string;
  name: string;
  plan: PlanName;
  state: "active" | "suspended";
  suspendedAt: string | null;
  createdBy: string;
  createdAt: string;
  /** Live keys (neither revoked nor expired). */
  keys: number;
  /** The plan's cap on live keys, or null for none. */
  maxKeys: number | null;
  /** The account's own limits (null: the plan's), and the limits its keys share: its own, else the plan's. */
  perMinute: number | null;
  perDay: number | null;
  /** The account's own monthly quota (null: the plan's). */
  perMonth: number | null;
  /** `perMonth`: the quota its keys share, its own else the plan's; null: none. */
  limits: { perMinute: number | null; perDay: number | null; perMonth: number | null };
  /** Usage alert thresholds, percentages of the day and month windows, ascending (docs/contract.md section 7). */
  alertThresholds: number[];
  /** Whether the account's members must sign in with a second factor (set by its owners). */
  requireTwoFactor: boolean;
  members: number;
  /** Requests of the account's keys that reached the API (429s not counted) since 00:00 UTC, as flushed (at most 5 s behind). */
  requestsToday: number;
}

export interface MemberView {
  id: string;
  email: string;
  name: string;
  role: MemberRole;
  active: boolean;
  createdAt: string;
}

export interface PendingInvitationView {
  id: string;
  email: string;
  role: MemberRole;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  /** The link has expired (an owner or admin may send a new one to the same email). */
  expired: boolean;
}

/** How long an expired invitation stays listed (as "expired", to send again). */
const EXPIRED_INVITATION_LISTED_MS = 30 * 86_400_000;

export interface AccountDetail extends AccountView {
  memberList: MemberView[];
  /**
   * Invitations not accepted, newest first, one per email: the open ones, and those expired in the last 30 days
   * (`expired`) whose email has no newer invitation and no sign-in in the account.
   */
  invitations: PendingInvitationView[];
}

/** A new account and its owner's invitation (the link is shown once). */
export interface CreatedAccount {
  id: string;
  invitationUrl: string;
  invitation: IssuedInvitation;
}

/** The longest Accounts list one call returns. */
export const MAX_ACCOUNTS_LISTED = 500;

interface AccountRow {
  id: string;
  name: string;
  plan: PlanName;
  suspendedAt: Date | null;
  createdBy: string;
  createdAt: Date;
  keys: number;
  maxKeys: number | null;
  perMinute: number | null;
  perDay: number | null;
  planPerMinute: number | null;
  planPerDay: number | null;
  perMonth: number | null;
  planPerMonth: number | null;
  alertThresholds: number[];
  requireTwoFactor: boolean;
  members: number;
  requestsToday: number;
}

const SORT_COLUMNS = {
  name: Prisma.sql`lower(a."name")`,
  createdAt: Prisma.sql`a."createdAt"`,
  keys: Prisma.sql`"keys"`,
  requestsToday: Prisma.sql`"requestsToday"`,
} as const;

const toMemberView = (m: User): MemberView => ({
  id: m.id,
  email: m.email,
  name: m.name,
  role: m.role as MemberRole,
  active: m.active,
  createdAt: m.createdAt.toISOString(),
});

const toView = (r: AccountRow): AccountView => ({
  id: r.id,
  name: r.name,
  plan: r.plan,
  state: r.suspendedAt ? "suspended" : "active",
  suspendedAt: r.suspendedAt?.toISOString() ?? null,
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
  keys: r.keys,
  maxKeys: r.maxKeys,
  perMinute: r.perMinute,
  perDay: r.perDay,
  perMonth: r.perMonth,
  limits: {
    perMinute: r.perMinute ?? r.planPerMinute,
    perDay: r.perDay ?? r.planPerDay,
    perMonth: r.perMonth ?? r.planPerMonth,
  },
  alertThresholds: r.alertThresholds,
  requireTwoFactor: r.requireTwoFactor,
  members: r.members,
  requestsToday: r.requestsToday,
});

export function createAccountService(
  deps: Pick<CoreDeps, "prisma" | "clock" | "config">,
  /** Drops keys from this instance's verification cache when a change applies to them (api-keys/service.ts). */
  forgetKeys: (ids: readonly string[]) => void,
  /** Mails the owner's invitation when an SMTP server is configured (mail.ts). */
  mailer: Mailer,
) {
  const { prisma, clock } = deps;
  const notFound = (id: string) => new AppError("not_found", `No account ${id}.`);

  /** The accounts matching `where`, with their figures. */
  async function rows(where: Prisma.Sql, order: Prisma.Sql, limit: number): Promise<AccountRow[]> {
    const now = clock();
    return prisma.$queryRaw<AccountRow[]>`
      SELECT a."id"::text AS "id", a."name", a."planName"::text AS "plan", a."suspendedAt", a."createdBy",
             a."createdAt", p."maxKeys", a."perMinute", a."perDay", p."perMinute" AS "planPerMinute",
             p."perDay" AS "planPerDay", a."perMonth", p."perMonth" AS "planPerMonth",
             a."alertThresholds", a."requireTwoFactor",
             (SELECT count(*)::int FROM "ApiKey" k WHERE k."accountId" = a."id"
                AND (k."revokedAt" IS NULL OR k."revokedAt" > ${now})
                AND (k."expiresAt" IS NULL OR k."expiresAt" > ${now})) AS "keys",
             (SELECT count(*)::int FROM "User" u WHERE u."accountId" = a."id") AS "members",
             COALESCE((SELECT sum(h."requests")::int FROM "UsageHour" h JOIN "ApiKey" k ON k."id" = h."apiKeyId"
                WHERE k."accountId" = a."id" AND h."hour" >= ${utcDay(now)}
                  AND h."outcome" IN ('2xx', '4xx', '5xx')), 0) AS "requestsToday"
      FROM "Account" a JOIN "Plan" p ON p."name" = a."planName"
      WHERE ${where}
      ORDER BY ${order}, a."id"
      LIMIT ${limit}`;
  }

  async function get(id: string): Promise<AccountDetail> {
    const [row] = await rows(Prisma.sql`a."id" = ${id}::uuid`, Prisma.sql`a."id"`, 1);
    if (!row) throw notFound(id);
    const [members, invitations] = await Promise.all([
      prisma.user.findMany({ where: { accountId: id }, orderBy: { email: "asc" } }),
      prisma.invitation.findMany({
        where: {
          accountId: id,
          acceptedAt: null,
          expiresAt: { gt: new Date(clock().getTime() - EXPIRED_INVITATION_LISTED_MS) },
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      }),
    ]);
    const now = clock();
    const seen = new Set(members.map((m) => m.email));
    const listed = invitations.filter((i) => {
      const expired = i.expiresAt <= now;
      // An expired link is listed only while nothing newer stands for its email.
      if (expired && seen.has(i.email)) return false;
      seen.add(i.email);
      return true;
    });
    return {
      ...toView(row),
      memberList: members.map(toMemberView),
      invitations: listed.map((i) => ({
        id: i.id,
        email: i.email,
        role: i.role as MemberRole,
        createdBy: i.createdBy,
        createdAt: i.createdAt.toISOString(),
        expiresAt: i.expiresAt.toISOString(),
        expired: i.expiresAt <= now,
      })),
    };
  }

  /**
   * Sets `data` on account `id` with its audit entry (the fields before and after) in one transaction.
   * @returns the ids of the account's keys (for the caller to forget when its keys read the fields)
   * @throws AppError not_found
   */
  async function setAudited(
    id: string,
    data: { alertThresholds?: number[]; requireTwoFactor?: boolean },
    action: AuditEntry["action"],
    actor: Actor,
  ): Promise<string[]> {
    return prisma.$transaction(async (tx) => {
      const before = await tx.account.findUnique({ where: { id } });
      if (!before) throw notFound(id);
      await tx.account.update({ where: { id }, data });
      const fields = Object.keys(data) as (keyof typeof data)[];
      const was = Object.fromEntries(fields.map((field) => [field, before[field]]));
      await writeAudit(tx, { actor, action, entityType: "account", entityId: id, before: was, after: data });
      return keysOf(tx, id);
    });
  }

  /** The ids of account `id`'s keys, after a change that applies to all of them. */
  async function keysOf(tx: Prisma.TransactionClient, id: string): Promise<string[]> {
    const keys = await tx.apiKey.findMany({ where: { accountId: id }, select: { id: true } });
    return keys.map((k) => k.id);
  }

  /**
   * Locks the rows of account `accountId`'s active owners (in id order, so that concurrent callers queue instead
   * of deadlocking) and returns their ids. Under READ COMMITTED a caller that waited re-reads the rows it locks,
   * so it sees the demotions and removals committed before it got the lock.
   */
  async function lockOwners(tx: Prisma.TransactionClient, accountId: string): Promise<Set<string>> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id"::text AS "id" FROM "User"
      WHERE "accountId" = ${accountId}::uuid AND "role" = 'owner' AND "active"
      ORDER BY "id" FOR UPDATE`;
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Member `id` of account `accountId`, its row locked for the rest of `tx` (after `lockOwners` when the change
   * may lower the number of owners: every caller takes the owners' rows first), so that a concurrent removal
   * makes this change a not_found rather than a failed write. @throws AppError not_found for an unknown account;
   * for an id that is no member of it (another account's member, staff, no one) one and the same not_found.
   */
  async function memberOf(tx: Prisma.TransactionClient, accountId: string, id: string): Promise<User> {
    const account = await tx.account.findUnique({ where: { id: accountId }, select: { id: true } });
    if (!account) throw notFound(accountId);
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id"::text AS "id" FROM "User" WHERE "id" = ${id}::uuid AND "accountId" = ${accountId}::uuid
      FOR UPDATE`;
    const member = locked.length ? await tx.user.findUnique({ where: { id } }) : null;
    if (!member) throw new AppError("not_found", `No member ${id}.`);
    return member;
  }

  /** Refuses a change that would leave account `owners` (locked by `lockOwners`) without an active owner. */
  function ensureAnotherOwner(owners: Set<string>, member: User, change: string) {
    if (member.role !== "owner" || !member.active) return;
    if ([...owners].some((id) => id !== member.id)) return;
    throw new AppError(
      "conflict",
      `${member.email} is the account's last owner and cannot be ${change}: make another member an owner first.`,
    );
  }

  return {
    /**
     * Creates an account on `plan` and invites its owner (`ownerEmail`).
     * @returns the account's id and the owner's invitation link (shown once).
     */
    async create(input: AccountCreate, actor: Actor): Promise<CreatedAccount> {
      const created = await prisma.$transaction(async (tx) => {
        const account = await tx.account.create({
          data: { name: input.name, planName: input.plan, createdBy: actor },
        });
        await writeAudit(tx, {
          actor,
          action: "account.create",
          entityType: "account",
          entityId: account.id,
          after: account,
        });
        const invitation = await insertInvitation(
          tx,
          deps,
          { accountId: account.id, email: input.ownerEmail, role: "owner" },
          actor,
        );
        return { id: account.id, invitationUrl: invitation.invitationUrl, invitation };
      });
      const mailed = await mailer(invitationMail(created.invitation, input.name));
      return { ...created, invitation: { ...created.invitation, mailed } };
    },

    /** Accounts matching `filter` (name contains `query`, plan, state), sorted, at most 500. */
    async list(filter: AccountListFilter): Promise<AccountView[]> {
      const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
      if (filter.query) conditions.push(Prisma.sql`a."name" ILIKE ${`%${likeLiteral(filter.query)}%`}`);
      if (filter.plan) conditions.push(Prisma.sql`a."planName" = ${filter.plan}::"PlanName"`);
      if (filter.state === "active") conditions.push(Prisma.sql`a."suspendedAt" IS NULL`);
      if (filter.state === "suspended") conditions.push(Prisma.sql`a."suspendedAt" IS NOT NULL`);
      const direction = filter.sortDirection === "desc" ? Prisma.sql`DESC` : Prisma.sql`ASC`;
      const order = Prisma.sql`${SORT_COLUMNS[filter.sortBy]} ${direction}`;
      const found = await rows(Prisma.join(conditions, " AND "), order, MAX_ACCOUNTS_LISTED);
      return found.map(toView);
    },

    /** One account with its members and open invitations. @throws AppError not_found. */
    get,

    /**
     * Moves the account, and every key it holds, to `plan`; the keys' new limits apply within 5 s.
     * @throws AppError not_found.
     */
    async setPlan(input: { id: string; plan: PlanName }, actor: Actor): Promise<AccountDetail> {
      const keys = await prisma.$transaction(async (tx) => {
        const before = await tx.account.findUnique({ where: { id: input.id } });
        if (!before) throw notFound(input.id);
        if (before.planName === input.plan) return [];
        if (input.plan === "enterprise" && (before.perMinute === null || before.perDay === null))
          throw new AppError(
            "conflict",
            "Enterprise has no plan-wide limits: set the account's own limits first, or its keys would stop working.",
          );
        await tx.account.update({ where: { id: input.id }, data: { planName: input.plan } });
        await tx.apiKey.updateMany({ where: { accountId: input.id }, data: { planName: input.plan } });
        await writeAudit(tx, {
          actor,
          action: "account.setPlan",
          entityType: "account",
          entityId: input.id,
          before: { plan: before.planName },
          after: { plan: input.plan },
        });
        return keysOf(tx, input.id);
      });
      forgetKeys(keys);
      return get(input.id);
    },

    /**
     * The account's usage alert thresholds (percentages of the day and month windows; empty: none), read with its
     * keys, so they apply within 5 s. Audited as `account.setAlertThresholds`. @throws AppError not_found.
     */
    async setAlertThresholds(
      input: { id: string; thresholds: number[] },
      actor: Actor,
    ): Promise<AccountDetail> {
      forgetKeys(
        await setAudited(
          input.id,
          { alertThresholds: input.thresholds },
          "account.setAlertThresholds",
          actor,
        ),
      );
      return get(input.id);
    },

    /**
     * Requires (or stops requiring) a second factor of the account's members at sign-in (audited
     * `account.requireTwoFactor`). @throws AppError not_found.
     */
    async setRequireTwoFactor(
      input: { id: string; required: boolean },
      actor: Actor,
    ): Promise<AccountDetail> {
      await setAudited(input.id, { requireTwoFactor: input.required }, "account.requireTwoFactor", actor);
      return get(input.id);
    },

    /**
     * Sets the account's own limits, which its keys share instead of the plan's (null: the plan's), and when
     * `perMonth` is given its own monthly quota (null: the plan's); they apply within 5 s. @throws AppError not_found; validation_failed when they break the limits rule (both are needed
     * on Enterprise; per-minute at most per-day).
     */
    async setLimits(
      input: { id: string; perMinute: number | null; perDay: number | null; perMonth?: number | null },
      actor: Actor,
    ): Promise<AccountDetail> {
      const keys = await prisma.$transaction(async (tx) => {
        const before = await tx.account.findUnique({ where: { id: input.id } });
        if (!before) throw notFound(input.id);
        assertLimits({ plan: before.planName, perMinute: input.perMinute, perDay: input.perDay });
        await tx.account.update({
          where: { id: input.id },
          data: {
            perMinute: input.perMinute,
            perDay: input.perDay,
            ...(input.perMonth !== undefined ? { perMonth: input.perMonth } : {}),
          },
        });
        await writeAudit(tx, {
          actor,
          action: "account.setLimits",
          entityType: "account",
          entityId: input.id,
          before: { perMinute: before.perMinute, perDay: before.perDay, perMonth: before.perMonth },
          after: {
            perMinute: input.perMinute,
            perDay: input.perDay,
            perMonth: input.perMonth === undefined ? before.perMonth : input.perMonth,
          },
        });
        return keysOf(tx, input.id);
      });
      forgetKeys(keys);
      return get(input.id);
    },

    /**
     * Suspends (every key of the account answers 401 within 5 s, on every instance) or resumes an account.
     * Idempotent. @throws AppError not_found.
     */
    async setSuspended(input: { id: string; suspended: boolean }, actor: Actor): Promise<AccountDetail> {
      const keys = await prisma.$transaction(async (tx) => {
        const before = await tx.account.findUnique({ where: { id: input.id } });
        if (!before) throw notFound(input.id);
        if (!!before.suspendedAt === input.suspended) return [];
        const suspendedAt = input.suspended ? clock() : null;
        await tx.account.update({ where: { id: input.id }, data: { suspendedAt } });
        await writeAudit(tx, {
          actor,
          action: input.suspended ? "account.suspend" : "account.resume",
          entityType: "account",
          entityId: input.id,
          before: { suspendedAt: before.suspendedAt },
          after: { suspendedAt },
        });
        return keysOf(tx, input.id);
      });
      forgetKeys(keys);
      return get(input.id);
    },

    /**
     * Gives member `id` of account `accountId` the role `role` (owner or developer), audited as
     * `account.setMemberRole` on the account. The new role applies to the member's next request.
     * @returns the member as changed. @throws AppError not_found (no such account, or no such member of it);
     * conflict when it would demote the account's last owner.
     */
    async setMemberRole(
      input: { accountId: string; id: string; role: MemberRole },
      actor: Actor,
    ): Promise<MemberView> {
      return prisma.$transaction(async (tx) => {
        const owners = input.role === "owner" ? undefined : await lockOwners(tx, input.accountId);
        const before = await memberOf(tx, input.accountId, input.id);
        if (before.role === input.role) return toMemberView(before);
        if (owners) ensureAnotherOwner(owners, before, "made a developer");
        const after = await tx.user.update({ where: { id: before.id }, data: { role: input.role } });
        await writeAudit(tx, {
          actor,
          action: "account.setMemberRole",
          entityType: "account",
          entityId: input.accountId,
          before: { member: before.email, memberId: before.id, role: before.role },
          after: { member: after.email, memberId: after.id, role: after.role },
        });
        return toMemberView(after);
      });
    },

    /**
     * Removes member `id` from account `accountId`: their sign-in is deleted and every session of theirs ends in
     * the same transaction, so their next request is refused; their email may be invited again. The account's
     * keys and webhook endpoints stay. Audited as `account.removeMember` on the account, with the member as they
     * were. @returns the member as they were. @throws AppError not_found (no such account, or no such member of
     * it); conflict when the member is the account's last owner.
     */
    async removeMember(input: { accountId: string; id: string }, actor: Actor): Promise<MemberView> {
      return prisma.$transaction(async (tx) => {
        const owners = await lockOwners(tx, input.accountId);
        const member = await memberOf(tx, input.accountId, input.id);
        ensureAnotherOwner(owners, member, "removed");
        // Their browsers are told why at the next sign-in page (sessions' `endedReason`).
        const sessions = await tx.session.findMany({
          where: { userId: member.id },
          select: { tokenHash: true, expiresAt: true },
        });
        await tx.endedSession.createMany({
          data: sessions.map((s) => ({ ...s, reason: "removed" })),
          skipDuplicates: true,
        });
        const ended = await tx.session.deleteMany({ where: { userId: member.id } });
        await tx.user.delete({ where: { id: member.id } });
        await writeAudit(tx, {
          actor,
          action: "account.removeMember",
          entityType: "account",
          entityId: input.accountId,
          before: { member: member.email, memberId: member.id, name: member.name, role: member.role },
          after: { sessionsEnded: ended.count },
        });
        return toMemberView(member);
      });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
