/**
 * "Forgot password" links and password changes, for staff and members alike (docs/contract.md section 4
 * "Passwords"). A reset link holds a random token (32 bytes, base64url) whose SHA-256 alone is stored; it works
 * once, for `PASSWORD_RESET_TTL_MS`, and ends every session of its person.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@petstore/contracts";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import type { Mailer } from "../mail.ts";
import type { SignInThrottle } from "../sessions/throttle.ts";
import { type PasswordWork, verifyPassword } from "./password.ts";

/** How long a reset link works (ms). */
export const PASSWORD_RESET_TTL_MS = 3600_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const INVALID_LINK =
  "This password reset link is not valid: it was used, it expired, or it was mistyped. Ask for a new one.";

/** The reset mail: the link and how long it works. */
export function passwordResetMail(to: string, url: string, expiresAt: Date) {
  return {
    to,
    subject: "Reset your Pet Store password",
    text: [
      "Someone (hopefully you) asked to reset the password of this email's Pet Store sign-in.",
      "",
      `Choose a new password here: ${url}`,
      "",
      `The link works once, until ${expiresAt.toISOString()} (1 hour). Using it signs you out everywhere.`,
      "If you did not ask for it, ignore this mail: your password stays as it is.",
    ].join("\n"),
  };
}

export function createCredentialService(
  deps: Pick<CoreDeps, "prisma" | "clock" | "config" | "logger">,
  passwords: PasswordWork,
  mailer: Mailer,
  throttle: Pick<SignInThrottle, "admit" | "succeeded">,
) {
  const { prisma, clock, config, logger } = deps;

  /** The 429 of a throttled request, `retryAfterSeconds` (whole seconds) until it may be tried again. */
  const throttled = (retryAfterSeconds: number) =>
    new AppError("rate_limited", "Too many attempts. Try again later.", undefined, {
      "Retry-After": String(retryAfterSeconds),
    });

  return {
    /**
     * "Forgot password": mails a reset link to `email` when it is an active person's sign-in, and answers the
     * same whether it is or not (the mail is sent after the answer, so its time tells nothing either). The
     * request counts as a failed attempt in the sign-in throttle (per address, per account and address, per
     * account). Without SMTP_URL the mail is logged without its link. Audited when the person exists.
     * @throws AppError rate_limited while the sign-in throttle refuses the email or address.
     */
    async requestReset(email: string, client: { ip: string }): Promise<void> {
      const admission = await throttle.admit({ email, ip: client.ip });
      if (!admission.admitted) throw throttled(admission.retryAfterSeconds);
      const user = await prisma.user.findUnique({ where: { email } });
      if (!user?.active) return;
      const token = randomBytes(32).toString("base64url");
      const now = clock();
      const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
      await prisma.$transaction(async (tx) => {
        await tx.passwordReset.create({
          data: { tokenHash: hashToken(token), userId: user.id, createdAt: now, expiresAt },
        });
        await writeAudit(tx, {
          actor: `user:${user.email}`,
          action: "user.passwordResetRequest",
          entityType: "user",
          entityId: user.id,
          after: { ip: client.ip, expiresAt },
        });
      });
      const face = user.accountId ? "portal" : "admin";
      const mail = passwordResetMail(
        user.email,
        `${config.publicBaseUrl}/${face}/reset-password/${token}`,
        expiresAt,
      );
      void mailer(mail).then((mailed) => {
        if (mailed === "off")
          logger.info(
            { to: mail.to, subject: mail.subject },
            "password reset mail (no SMTP_URL: not sent; its link is not logged)",
          );
      });
    },

    /**
     * Sets a new password with a reset link's `token`: uses the link (and every other open link of the person)
     * up and ends all the person's sessions (audited `user.passwordReset`). @returns the person's email.
     * @throws AppError not_found for a used, expired or unknown link.
     */
    async reset(token: string, password: string): Promise<{ email: string }> {
      const passwordHash = await passwords.hash(password, config.passwordHashCost);
      const now = clock();
      return prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<{ userId: string }[]>`
          UPDATE "PasswordReset" SET "usedAt" = ${now}
          WHERE "tokenHash" = ${hashToken(token)} AND "usedAt" IS NULL AND "expiresAt" > ${now}
          RETURNING "userId"::text AS "userId"`;
        const userId = rows[0]?.userId;
        if (!userId) throw new AppError("not_found", INVALID_LINK);
        const user = await tx.user.update({ where: { id: userId }, data: { passwordHash } });
        await tx.passwordReset.updateMany({ where: { userId, usedAt: null }, data: { usedAt: now } });
        const { count } = await tx.session.deleteMany({ where: { userId } });
        await writeAudit(tx, {
          actor: `user:${user.email}`,
          action: "user.passwordReset",
          entityType: "user",
          entityId: userId,
          after: { sessionsEnded: count },
        });
        return { email: user.email };
      });
    },

    /**
     * Changes `userId`'s password after checking the current one (a wrong one counts in the sign-in throttle),
     * and ends their other sessions than `keepSessionId` (audited `user.changePassword`).
     * @returns how many sessions ended.
     * @throws AppError validation_failed for a wrong current password; rate_limited while throttled.
     */
    async change(
      userId: string,
      keepSessionId: string,
      input: { currentPassword: string; newPassword: string },
      client: { ip: string },
      actor: Actor,
    ): Promise<{ sessionsEnded: number }> {
      const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
      const attempt = { email: user.email, ip: client.ip };
      const admission = await throttle.admit(attempt);
      if (!admission.admitted) throw throttled(admission.retryAfterSeconds);
      const release = await passwords.acquire();
      let matches: boolean;
      try {
        matches = await verifyPassword(input.currentPassword, user.passwordHash);
      } finally {
        release();
      }
      // Not `unauthorized`: the person is signed in, only this field is wrong.
      if (!matches)
        throw new AppError("validation_failed", "The current password is not right.", [
          { path: "currentPassword", message: "is not your current password" },
        ]);
      await throttle.succeeded(attempt);
      const passwordHash = await passwords.hash(input.newPassword, config.passwordHashCost);
      return prisma.$transaction(async (tx) => {
        await tx.user.update({ where: { id: userId }, data: { passwordHash } });
        const { count } = await tx.session.deleteMany({ where: { userId, id: { not: keepSessionId } } });
        await writeAudit(tx, {
          actor,
          action: "user.changePassword",
          entityType: "user",
          entityId: userId,
          after: { sessionsEnded: count },
        });
        return { sessionsEnded: count };
      });
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
