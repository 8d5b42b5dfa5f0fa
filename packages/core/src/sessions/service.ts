/**
 * Dashboard sessions and sign-in (docs/contract.md section 4; the order of a sign-in's steps and why:
 * docs/architecture.md "Sign-in throttling"). The cookie holds an opaque random token (256 bits); the database
 * keeps only its SHA-256. A session's idle expiry slides with each use (written at most once a minute), never
 * past its absolute end (`sessionEndsAt`); deactivated users' sessions resolve to nothing.
 *
 * `signIn`: a slot of the instance's password work (users/password.ts `PasswordWork`), then the throttle
 * (throttle.ts), then the password, checked outside any transaction (against a decoy hash for unknown emails),
 * one message for every failure, a rehash of a password stored at another cost, and a fresh device cookie
 * (device-cookie.ts). Sign-ins, sign-outs and failed sign-ins are in the audit log.
 *
 * A person with a second factor (users/two-factor.ts) gets a session at stage `totp` after the password, one
 * that must be given a code (`completeSecondFactor`) before it opens anything; a person who must have one and
 * has none gets a session at stage `enrol`, which opens only the enrolment (`promote` once it is done). Either
 * lasts `PENDING_SESSION_MS` and gets a new token when it becomes a full session.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Config } from "@petstore/config";
import { AppError, type SignIn } from "@petstore/contracts";
import { writeAudit } from "../audit.ts";
import type { CoreDeps } from "../deps.ts";
import { ensureServerSecret } from "../secrets.ts";
import {
  createPasswordWork,
  decoyPasswordHash,
  hashPassword,
  needsRehash,
  type PasswordWork,
  verifyPassword,
} from "../users/password.ts";
import type { UserRoleName } from "../users/service.ts";
import { createTwoFactorService, twoFactorRequired } from "../users/two-factor.ts";
import { createDeviceCookieCodec, type DeviceCookieCodec } from "./device-cookie.ts";
import { createKnownSessions } from "./known.ts";
import { createSignInThrottle, type SignInAttempt } from "./throttle.ts";

const TOUCH_INTERVAL_MS = 60_000;

/** How long a session waits at a second-factor step (`totp`, `enrol`) before it ends (ms). */
export const PENDING_SESSION_MS = 10 * 60_000;

/** The step a signed-in person must take before their session opens anything (null: none). */
export type SessionStage = "totp" | "enrol";

/** The message of a wrong second-factor code. */
export const SECOND_FACTOR_FAILED_MESSAGE = "That code is not right. Try the code your app shows now.";

/** The signed-in user as the dashboard sees it. */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: UserRoleName;
  /** The consumer account of a member (roles `owner`, `developer`); null for staff and admins. */
  accountId: string | null;
}

export interface ResolvedSession {
  sessionId: string;
  user: SessionUser;
  expiresAt: Date;
}

export interface NewSession extends ResolvedSession {
  /** The cookie value; returned once, never stored. */
  token: string;
  /** The browser's new device cookie value (device-cookie.ts): a fresh token for this account first. */
  deviceCookie: string;
  /** The step still to take before the session opens anything (null: a full session). */
  stage: SessionStage | null;
}

/** A session at a second-factor step (`SessionStage`). */
export interface PendingSession {
  sessionId: string;
  user: SessionUser;
  stage: SessionStage;
}

/** Who is signing in, as the HTTP request tells. */
export interface SignInClient {
  ip: string;
  userAgent?: string | null;
  /** The device cookie the browser sent, if any (device-cookie.ts). */
  deviceCookie?: string | null;
}

export const SIGN_IN_FAILED_MESSAGE = "The email or password is incorrect.";

/** Retry-After of a sign-in refused because the instance is checking as many passwords as it may at once. */
export const SIGN_IN_BUSY_RETRY_SECONDS = 1;

/** The 429 of a throttled sign-in, `retryAfterSeconds` (whole seconds) until it may be tried again. */
function throttled(retryAfterSeconds: number): AppError {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new AppError(
    "rate_limited",
    `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    undefined,
    { "Retry-After": String(retryAfterSeconds) },
  );
}

/** The message of a sign-in refused while every password slot is taken and the queue is full. */
export const SIGN_IN_BUSY_MESSAGE = "Too many sign-ins at this moment. Try again in a second.";

/** Audit actor of a failed sign-in: nobody is known (the client's address is in the entry). */
export const ANONYMOUS_ACTOR = "anonymous";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The instant a session opened at `createdAt` ends however much it is used: `sessionMaxDays` later
 * (SESSION_MAX_DAYS; docs/contract.md section 4, "Sessions").
 */
export function sessionEndsAt(createdAt: Date, config: Pick<Config, "sessionMaxDays">): Date {
  return new Date(createdAt.getTime() + config.sessionMaxDays * 86_400_000);
}

/** The idle expiry after a use at `now`, never past the session's absolute end. */
function slidExpiry(now: Date, createdAt: Date, config: Pick<Config, "sessionIdleHours" | "sessionMaxDays">) {
  const idle = now.getTime() + config.sessionIdleHours * 3600_000;
  return new Date(Math.min(idle, sessionEndsAt(createdAt, config).getTime()));
}

/**
 * The session service; `passwords` is the instance's cap on password hashing (createCore shares one with the
 * user service), by default a cap of its own.
 */
export function createSessionService(
  deps: Pick<CoreDeps, "prisma" | "clock" | "config" | "logger">,
  passwords: PasswordWork = createPasswordWork(
    deps.config.passwordHashing.concurrency,
    deps.config.passwordHashing.queue,
  ),
) {
  const { prisma, clock, config, logger } = deps;
  const throttle = createSignInThrottle(deps);
  const known = createKnownSessions();
  const twoFactor = createTwoFactorService(deps);
  /** Reads of sessions the known list holds for longer than its TTL, by token hash (isKnown). */
  const rechecks = new Map<string, Promise<boolean>>();

  /** Reads the session of `tokenHash` again and remembers it when live, else forgets it. Never rejects. */
  async function recheck(tokenHash: string): Promise<boolean> {
    try {
      const session = await prisma.session.findUnique({
        where: { tokenHash },
        select: { expiresAt: true, createdAt: true, stage: true, user: { select: { active: true } } },
      });
      const now = clock();
      if (session && !session.stage && isLive(session, now)) {
        known.remember(tokenHash, session.expiresAt, now.getTime());
        return true;
      }
      known.forget(tokenHash);
      return false;
    } catch {
      // The database does not answer: budgeted like an anonymous caller this time (the dashboard cannot
      // serve it anyway); the entry stays for the next request.
      return false;
    }
  }

  /** Whether a session is live at `now`: within its idle expiry and its absolute end, its user active. */
  const isLive = (session: { expiresAt: Date; createdAt: Date; user: { active: boolean } }, now: Date) =>
    session.expiresAt > now && sessionEndsAt(session.createdAt, config) > now && session.user.active;
  // The device-cookie key is generated once per database (secrets.ts) and read on the first sign-in.
  let codec: Promise<DeviceCookieCodec> | undefined;
  const deviceCookies = () => {
    codec ??= ensureServerSecret(prisma, "device-cookie").then(createDeviceCookieCodec, (error: unknown) => {
      codec = undefined;
      throw error;
    });
    return codec;
  };

  /**
   * `signIn` once it holds a slot of the password work, which it gives back (`release`) as soon as the
   * password is checked (and rehashed).
   */
  async function signInWithSlot(
    input: SignIn,
    client: SignInClient,
    release: () => void,
  ): Promise<NewSession> {
    const devices = await deviceCookies();
    const presented = devices.tokens(client.deviceCookie, clock());
    // The account is looked up before the throttle only when a correctly signed token may name it.
    let user =
      presented.length > 0 ? await prisma.user.findUnique({ where: { email: input.email } }) : undefined;
    const attempt: SignInAttempt = {
      email: input.email,
      ip: client.ip,
      device: presented.find((token) => user && token.userId === user.id)?.nonce,
    };
    const admission = await throttle.admit(attempt);
    if (!admission.admitted) throw throttled(admission.retryAfterSeconds);
    if (user === undefined) user = await prisma.user.findUnique({ where: { email: input.email } });
    const matches = await verifyPassword(
      input.password,
      user?.passwordHash ?? decoyPasswordHash(config.passwordHashCost),
    );
    const rehashed =
      user && matches && needsRehash(user.passwordHash, config.passwordHashCost)
        ? await hashPassword(input.password, config.passwordHashCost)
        : undefined;
    release();
    if (!user || !matches || !user.active) {
      await writeAudit(prisma, {
        actor: ANONYMOUS_ACTOR,
        action: "session.signInFailed",
        entityType: "session",
        entityId: input.email,
        after: {
          email: input.email,
          ip: client.ip,
          knownAccount: Boolean(user),
          trustedDevice: Boolean(attempt.device),
        },
      });
      logger.info({ event: "signIn.failed", ip: client.ip }, "dashboard sign-in failed");
      throw new AppError("unauthorized", SIGN_IN_FAILED_MESSAGE);
    }
    await throttle.succeeded(attempt);
    if (rehashed) {
      // Unless the password changed meanwhile.
      await prisma.user.updateMany({
        where: { id: user.id, passwordHash: user.passwordHash },
        data: { passwordHash: rehashed },
      });
    }
    const token = randomBytes(32).toString("base64url");
    const now = clock();
    const stage: SessionStage | null = user.totpEnabledAt
      ? "totp"
      : (await twoFactorRequired(prisma, user))
        ? "enrol"
        : null;
    const expiresAt = stage ? new Date(now.getTime() + PENDING_SESSION_MS) : slidExpiry(now, now, config);
    const session = await prisma.$transaction(async (tx) => {
      const row = await tx.session.create({
        data: {
          tokenHash: hashToken(token),
          userId: user.id,
          createdAt: now,
          lastSeenAt: now,
          expiresAt,
          userAgent: client.userAgent?.slice(0, 512) || null,
          ip: client.ip,
          stage,
        },
      });
      if (stage) return row;
      await writeAudit(tx, {
        actor: `user:${user.email}`,
        action: "session.signIn",
        entityType: "session",
        entityId: user.email,
        after: { userId: user.id, ip: client.ip, trustedDevice: Boolean(attempt.device) },
      });
      return row;
    });
    if (!stage) known.remember(hashToken(token), expiresAt, now.getTime());
    logger.info({ event: "signIn", userId: user.id, stage }, "dashboard sign-in");
    return {
      token,
      deviceCookie: devices.issue(client.deviceCookie, user.id, now),
      sessionId: session.id,
      expiresAt,
      stage,
      user: { id: user.id, email: user.email, name: user.name, role: user.role, accountId: user.accountId },
    };
  }

  /** Turns a pending session into a full one under a new token (audited as the sign-in). */
  async function activate(pending: PendingSession, client: { ip: string }, secondFactor: string) {
    const token = randomBytes(32).toString("base64url");
    const now = clock();
    const expiresAt = slidExpiry(now, now, config);
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.session.updateMany({
        where: { id: pending.sessionId, stage: pending.stage },
        data: { tokenHash: hashToken(token), stage: null, createdAt: now, lastSeenAt: now, expiresAt },
      });
      if (count === 0) throw new AppError("unauthorized", "This sign-in has expired. Sign in again.");
      await writeAudit(tx, {
        actor: `user:${pending.user.email}`,
        action: "session.signIn",
        entityType: "session",
        entityId: pending.user.email,
        after: { userId: pending.user.id, ip: client.ip, secondFactor },
      });
    });
    known.remember(hashToken(token), expiresAt, now.getTime());
    return { token, user: pending.user, expiresAt };
  }

  const service = {
    throttle,

    /**
     * Whether a sign-in now would be refused as busy (`signIn`'s 429 with Retry-After 1: every password slot
     * taken and the queue full), so the HTTP layer can answer it before reading the request's body.
     */
    signInBusy: (): boolean => passwords.full(),

    /**
     * Whether `token` is a live session, never an access check (known.ts): answered from memory when this
     * process read it valid less than KNOWN_SESSION_TTL_MS ago (true) or never (false); a session read valid
     * longer ago is read again, one read per token at a time, and the answer is a promise (false when the
     * database fails). Never throws or rejects.
     */
    isKnown(token: string | undefined): boolean | Promise<boolean> {
      if (!token || token.length > 100) return false;
      const tokenHash = hashToken(token);
      const state = known.state(tokenHash, clock().getTime());
      if (state !== "recheck") return state === "known";
      let pending = rechecks.get(tokenHash);
      if (!pending) {
        pending = recheck(tokenHash);
        rechecks.set(tokenHash, pending);
        void pending.finally(() => rechecks.delete(tokenHash));
      }
      return pending;
    },

    /**
     * Verifies credentials and opens a session. The throttle admits (and counts) the attempt before the
     * password is checked; an attempt whose device cookie holds a valid token for this account counts only
     * against that token's own limit. Sign-ins and failed sign-ins are audited (entity `session`, id = the
     * email).
     * @throws AppError rate_limited (with Retry-After, whole seconds) while throttled, or (Retry-After 1) while
     *   the instance checks as many passwords as it may and its queue is full; unauthorized for a wrong email,
     *   wrong password or inactive account, always with the same message.
     */
    async signIn(input: SignIn, client: SignInClient): Promise<NewSession> {
      // A client this instance knows is blocked is refused before taking any of the password work's places.
      if (!client.deviceCookie) {
        const known = throttle.refusedFromMemory({ email: input.email, ip: client.ip });
        if (known && !known.admitted) throw throttled(known.retryAfterSeconds);
      }
      const entered = passwords.enter();
      if (!entered) {
        throw new AppError("rate_limited", SIGN_IN_BUSY_MESSAGE, undefined, {
          "Retry-After": String(SIGN_IN_BUSY_RETRY_SECONDS),
        });
      }
      const release = await entered;
      try {
        return await signInWithSlot(input, client, release);
      } finally {
        release();
      }
    },

    /**
     * The live session for a cookie token, sliding its idle expiry (never past its absolute end); `undefined`
     * when the token is unknown, idle too long or past its absolute end (then deleted), or its user is
     * inactive. `client.ip`, when given, is recorded with the use.
     */
    async resolve(token: string | undefined, client?: { ip: string }): Promise<ResolvedSession | undefined> {
      if (!token || token.length > 100) return undefined;
      const session = await prisma.session.findUnique({
        where: { tokenHash: hashToken(token) },
        include: { user: true },
      });
      if (!session) {
        known.forget(hashToken(token));
        return undefined;
      }
      const now = clock();
      if (session.stage && isLive(session, now)) return undefined;
      if (!isLive(session, now)) {
        known.forget(session.tokenHash);
        await prisma.session.deleteMany({ where: { id: session.id } });
        return undefined;
      }
      let expiresAt = session.expiresAt;
      if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
        expiresAt = slidExpiry(now, session.createdAt, config);
        await prisma.session.updateMany({
          where: { id: session.id },
          data: { lastSeenAt: now, expiresAt, ...(client ? { ip: client.ip } : {}) },
        });
      }
      known.remember(session.tokenHash, expiresAt, now.getTime());
      const { user } = session;
      return {
        sessionId: session.id,
        expiresAt,
        user: { id: user.id, email: user.email, name: user.name, role: user.role, accountId: user.accountId },
      };
    },

    /** The live session of `token` while it waits at a second-factor step, else undefined. */
    async pending(token: string | undefined): Promise<PendingSession | undefined> {
      if (!token || token.length > 100) return undefined;
      const session = await prisma.session.findUnique({
        where: { tokenHash: hashToken(token) },
        include: { user: true },
      });
      if (!session?.stage || !isLive(session, clock())) return undefined;
      const { user } = session;
      return {
        sessionId: session.id,
        stage: session.stage as SessionStage,
        user: { id: user.id, email: user.email, name: user.name, role: user.role, accountId: user.accountId },
      };
    },

    /**
     * The second step of a sign-in with a second factor: `code` (a TOTP code or a recovery code) for the
     * session of `token` at stage `totp`. The sign-in throttle admits the attempt first, as for a password.
     * @returns the full session under a new token (the old one stops working).
     * @throws AppError unauthorized when there is no such pending session or the code is wrong (audited as a
     *   failed sign-in); rate_limited while throttled.
     */
    async completeSecondFactor(
      token: string | undefined,
      code: string,
      client: { ip: string },
    ): Promise<{ token: string; user: SessionUser; expiresAt: Date }> {
      const pending = await service.pending(token);
      if (pending?.stage !== "totp")
        throw new AppError("unauthorized", "This sign-in has expired. Sign in again.");
      const attempt: SignInAttempt = { email: pending.user.email, ip: client.ip };
      const admission = await throttle.admit(attempt);
      if (!admission.admitted) throw throttled(admission.retryAfterSeconds);
      const kind = await twoFactor.verify(pending.user.id, code);
      if (!kind) {
        await writeAudit(prisma, {
          actor: ANONYMOUS_ACTOR,
          action: "session.signInFailed",
          entityType: "session",
          entityId: pending.user.email,
          after: { email: pending.user.email, ip: client.ip, secondFactor: true },
        });
        throw new AppError("unauthorized", SECOND_FACTOR_FAILED_MESSAGE);
      }
      await throttle.succeeded(attempt);
      return activate(pending, client, kind === "totp" ? "code" : "recovery code");
    },

    /**
     * Opens the session of `token` at stage `enrol` once its person has a second factor (under a new token).
     * @throws AppError unauthorized when there is no such session; conflict while the second factor is not on.
     */
    async promote(
      token: string | undefined,
      client: { ip: string },
    ): Promise<{ token: string; user: SessionUser; expiresAt: Date }> {
      const pending = await service.pending(token);
      if (pending?.stage !== "enrol")
        throw new AppError("unauthorized", "This sign-in has expired. Sign in again.");
      const status = await twoFactor.status(pending.user.id);
      if (!status.enabled) throw new AppError("conflict", "Turn on two-factor sign-in first.");
      return activate(pending, client, "enrolment");
    },

    /**
     * Why the session of `token` was ended on its person's behalf, while it would still have been live: `removed`
     * (a member removed from their account); undefined when it was not (or is unknown).
     */
    async endedReason(token: string | undefined): Promise<"removed" | undefined> {
      if (!token || token.length > 100) return undefined;
      const ended = await prisma.endedSession.findUnique({ where: { tokenHash: hashToken(token) } });
      return ended && ended.expiresAt > clock() && ended.reason === "removed" ? "removed" : undefined;
    },

    /**
     * Ends the session holding `token` (sign-out) and audits it; unknown tokens are ignored. `client.ip` is
     * recorded when given.
     */
    async signOut(token: string | undefined, client?: { ip: string }): Promise<void> {
      if (!token) return;
      known.forget(hashToken(token));
      await prisma.$transaction(async (tx) => {
        const session = await tx.session.findUnique({
          where: { tokenHash: hashToken(token) },
          include: { user: { select: { email: true } } },
        });
        if (!session) return;
        await tx.session.deleteMany({ where: { id: session.id } });
        await writeAudit(tx, {
          actor: `user:${session.user.email}`,
          action: "session.signOut",
          entityType: "session",
          entityId: session.user.email,
          after: { userId: session.userId, ...(client ? { ip: client.ip } : {}) },
        });
      });
    },
  };
  return service;
}

export type SessionService = ReturnType<typeof createSessionService>;
