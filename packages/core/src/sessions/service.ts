/**
 * Dashboard sessions (docs/contract.md section 4). The cookie holds an opaque random token (256 bits); the
 * database keeps only its SHA-256. A session expires after `config.sessionIdleHours` without use; each use
 * slides the expiry (written at most once a minute). Deactivated users' sessions resolve to nothing.
 *
 * `signIn` asks the throttle first (throttle.ts: the attempt is counted before the password is checked), then
 * checks the password (against a decoy hash for unknown emails so timing reveals nothing), and answers every
 * failure with the same message. Sign-ins, sign-outs and failed sign-ins are in the audit log.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError, type SignIn } from "@petstore/contracts";
import { writeAudit } from "../audit.ts";
import type { CoreDeps } from "../deps.ts";
import { decoyPasswordHash, verifyPassword } from "../users/password.ts";
import type { UserRoleName } from "../users/service.ts";
import { createSignInThrottle } from "./throttle.ts";

const TOUCH_INTERVAL_MS = 60_000;

/** The signed-in user as the dashboard sees it. */
export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: UserRoleName;
}

export interface ResolvedSession {
  sessionId: string;
  user: SessionUser;
  expiresAt: Date;
}

export interface NewSession extends ResolvedSession {
  /** The cookie value; returned once, never stored. */
  token: string;
}

export const SIGN_IN_FAILED_MESSAGE = "The email or password is incorrect.";

/** Audit actor of a failed sign-in: nobody is known (the client's address is in the entry). */
export const ANONYMOUS_ACTOR = "anonymous";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function createSessionService(deps: Pick<CoreDeps, "prisma" | "clock" | "config" | "logger">) {
  const { prisma, clock, config, logger } = deps;
  const throttle = createSignInThrottle(deps);
  const idleMs = () => config.sessionIdleHours * 3600_000;

  return {
    throttle,

    /**
     * Verifies credentials and opens a session. The throttle admits (and counts) the attempt before the
     * password is checked. Sign-ins and failed sign-ins are audited (entity `session`, id = the email).
     * @throws AppError rate_limited (with Retry-After, whole seconds) while throttled; unauthorized for a
     *   wrong email, wrong password or inactive account, always with the same message.
     */
    async signIn(input: SignIn, client: { ip: string; userAgent?: string | null }): Promise<NewSession> {
      const admission = await throttle.admit(input.email, client.ip);
      if (!admission.admitted) {
        const minutes = Math.ceil(admission.retryAfterSeconds / 60);
        throw new AppError(
          "rate_limited",
          `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
          undefined,
          { "Retry-After": String(admission.retryAfterSeconds) },
        );
      }
      const user = await prisma.user.findUnique({ where: { email: input.email } });
      const matches = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash()));
      if (!user || !matches || !user.active) {
        await writeAudit(prisma, {
          actor: ANONYMOUS_ACTOR,
          action: "session.signInFailed",
          entityType: "session",
          entityId: input.email,
          after: { email: input.email, ip: client.ip, knownAccount: Boolean(user) },
        });
        logger.info({ event: "signIn.failed", ip: client.ip }, "dashboard sign-in failed");
        throw new AppError("unauthorized", SIGN_IN_FAILED_MESSAGE);
      }
      await throttle.succeeded(input.email, client.ip);
      const token = randomBytes(32).toString("base64url");
      const now = clock();
      const expiresAt = new Date(now.getTime() + idleMs());
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
          },
        });
        await writeAudit(tx, {
          actor: `user:${user.email}`,
          action: "session.signIn",
          entityType: "session",
          entityId: user.email,
          after: { userId: user.id, ip: client.ip },
        });
        return row;
      });
      logger.info({ event: "signIn", userId: user.id }, "dashboard sign-in");
      return {
        token,
        sessionId: session.id,
        expiresAt,
        user: { id: user.id, email: user.email, name: user.name, role: user.role },
      };
    },

    /**
     * The live session for a cookie token, sliding its idle expiry; `undefined` when the token is unknown,
     * expired (then deleted) or its user is inactive. `client.ip`, when given, is recorded with the use.
     */
    async resolve(token: string | undefined, client?: { ip: string }): Promise<ResolvedSession | undefined> {
      if (!token || token.length > 100) return undefined;
      const session = await prisma.session.findUnique({
        where: { tokenHash: hashToken(token) },
        include: { user: true },
      });
      if (!session) return undefined;
      const now = clock();
      if (session.expiresAt <= now || !session.user.active) {
        await prisma.session.deleteMany({ where: { id: session.id } });
        return undefined;
      }
      let expiresAt = session.expiresAt;
      if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
        expiresAt = new Date(now.getTime() + idleMs());
        await prisma.session.updateMany({
          where: { id: session.id },
          data: { lastSeenAt: now, expiresAt, ...(client ? { ip: client.ip } : {}) },
        });
      }
      const { user } = session;
      return {
        sessionId: session.id,
        expiresAt,
        user: { id: user.id, email: user.email, name: user.name, role: user.role },
      };
    },

    /**
     * Ends the session holding `token` (sign-out) and audits it; unknown tokens are ignored. `client.ip` is
     * recorded when given.
     */
    async signOut(token: string | undefined, client?: { ip: string }): Promise<void> {
      if (!token) return;
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
}

export type SessionService = ReturnType<typeof createSessionService>;
