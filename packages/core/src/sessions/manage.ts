/**
 * A user's own dashboard sessions and ending them (docs/contract.md section 4 "Sessions"): the list with
 * the device (named from the User-Agent kept at sign-in), client address, sign-in time and last use;
 * ending one, ending all others, and an admin ending every session of another user. Endings are audited.
 */
import { AppError } from "@petstore/contracts";
import Bowser from "bowser";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { sessionEndsAt } from "./service.ts";

export interface SessionView {
  id: string;
  /** e.g. `Chrome 130 on Linux`; `Unknown device` without a User-Agent. */
  device: string;
  ip: string | null;
  createdAt: string;
  lastSeenAt: string;
  /** When the session ends unless it is used before (the idle timeout). */
  expiresAt: string;
  /** When the session ends at the latest, however much it is used (`sessionEndsAt`). */
  endsAt: string;
  /** The session making this request. */
  current: boolean;
}

/** A short human name of the device behind a User-Agent header. */
export function deviceName(userAgent: string | null | undefined): string {
  if (!userAgent) return "Unknown device";
  const { browser, os, platform } = Bowser.parse(userAgent);
  const major = browser.version?.split(".")[0];
  const name = browser.name ? `${browser.name}${major ? ` ${major}` : ""}` : "Unknown browser";
  const system = os.name ? ` on ${os.name}` : "";
  const kind = platform.type === "mobile" || platform.type === "tablet" ? ` (${platform.type})` : "";
  return `${name}${system}${kind}`;
}

export function createUserSessionService({
  prisma,
  clock,
  config,
}: Pick<CoreDeps, "prisma" | "clock" | "config">) {
  const live = () => {
    const now = clock();
    return {
      expiresAt: { gt: now },
      createdAt: { gt: new Date(now.getTime() - config.sessionMaxDays * 86_400_000) },
    };
  };

  return {
    /** The live sessions of `userId`, most recently used first; `currentId` is marked `current`. */
    async list(userId: string, currentId: string | null): Promise<SessionView[]> {
      const rows = await prisma.session.findMany({
        where: { userId, stage: null, ...live() },
        orderBy: [{ lastSeenAt: "desc" }, { id: "asc" }],
      });
      return rows.map((s) => ({
        id: s.id,
        device: deviceName(s.userAgent),
        ip: s.ip,
        createdAt: s.createdAt.toISOString(),
        lastSeenAt: s.lastSeenAt.toISOString(),
        expiresAt: s.expiresAt.toISOString(),
        endsAt: sessionEndsAt(s.createdAt, config).toISOString(),
        current: s.id === currentId,
      }));
    },

    /**
     * Ends one of `userId`'s own sessions (audited). @throws AppError not_found when it is not theirs or
     * already ended.
     */
    async revoke(userId: string, sessionId: string, actor: Actor): Promise<void> {
      await prisma.$transaction(async (tx) => {
        const { count } = await tx.session.deleteMany({ where: { id: sessionId, userId } });
        if (count === 0) throw new AppError("not_found", "This session has already ended.");
        await writeAudit(tx, {
          actor,
          action: "user.endSession",
          entityType: "user",
          entityId: userId,
          before: { sessionId },
        });
      });
    },

    /** Ends every session of `userId` except `keepId` (audited when any ended). @returns how many ended. */
    async revokeOthers(userId: string, keepId: string, actor: Actor): Promise<number> {
      return prisma.$transaction(async (tx) => {
        const { count } = await tx.session.deleteMany({ where: { userId, id: { not: keepId } } });
        if (count > 0)
          await writeAudit(tx, {
            actor,
            action: "user.endOtherSessions",
            entityType: "user",
            entityId: userId,
            before: { sessions: count + 1 },
            after: { sessions: 1 },
          });
        return count;
      });
    },

    /**
     * An admin ends every session of another user (audited). @returns how many ended.
     * @throws AppError not_found for an unknown user; conflict for the admin's own account (they use
     *   "sign out other sessions" instead, which keeps the session they are using).
     */
    async endAllOf(userId: string, actingUserId: string, actor: Actor): Promise<number> {
      if (userId === actingUserId)
        throw new AppError(
          "conflict",
          "Use “Sign out other sessions” on your sessions page for your own account.",
        );
      return prisma.$transaction(async (tx) => {
        const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true } });
        if (!user) throw new AppError("not_found", `No user with id ${userId}.`);
        const { count } = await tx.session.deleteMany({ where: { userId } });
        await writeAudit(tx, {
          actor,
          action: "user.endAllSessions",
          entityType: "user",
          entityId: userId,
          before: { sessions: count },
          after: { sessions: 0 },
        });
        return count;
      });
    },
  };
}

export type UserSessionService = ReturnType<typeof createUserSessionService>;
