/**
 * Invitations to consumer accounts (docs/contract.md section 7): a link with a random token (32 bytes, base64url)
 * whose SHA-256 is stored; single use, valid for 72 hours. Accepting one creates the member (a user with the
 * invitation's role and account) in the same transaction that uses the invitation up, so a link cannot make two
 * members, and a refused acceptance (the email is taken) leaves the invitation usable.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError, type InvitationAccept, type MemberRole } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import type { Mailer } from "../mail.ts";
import type { PasswordWork } from "../users/password.ts";

/** How long an invitation link works (ms). */
export const INVITATION_TTL_MS = 72 * 3600_000;

export const hashInvitationToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** What the acceptance page shows before a person sets a name and password. */
export interface InvitationPreview {
  accountName: string;
  email: string;
  role: MemberRole;
  expiresAt: string;
}

/** A new invitation: its link is returned once and stored nowhere. */
export interface IssuedInvitation {
  id: string;
  email: string;
  role: MemberRole;
  invitationUrl: string;
  expiresAt: string;
  /** Whether the link was mailed to `email`: `sent`, `failed`, or `off` without an SMTP server (mail.ts). */
  mailed?: "sent" | "failed" | "off";
}

/** The invitation mail: the account, the role, the link and how long it works. */
export function invitationMail(invitation: IssuedInvitation, accountName: string) {
  return {
    to: invitation.email,
    subject: `You are invited to ${accountName} on the Pet Store developer portal`,
    text: [
      `You are invited to join ${accountName} as ${invitation.role === "owner" ? "an owner" : "a developer"} on the Pet Store developer portal.`,
      "",
      `Set your name and password here: ${invitation.invitationUrl}`,
      "",
      `The link works once, until ${invitation.expiresAt} (72 hours). If you did not expect it, ignore this mail.`,
    ].join("\n"),
  };
}

const INVALID_LINK =
  "This invitation link is not valid: it was used, it expired, or it was mistyped. Ask for a new one.";

/** Writes an invitation inside transaction `tx`, audited as `invitation.create`. */
export async function insertInvitation(
  tx: Prisma.TransactionClient,
  deps: Pick<CoreDeps, "clock" | "config">,
  input: { accountId: string; email: string; role: MemberRole },
  actor: Actor,
): Promise<IssuedInvitation> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(deps.clock().getTime() + INVITATION_TTL_MS);
  const row = await tx.invitation.create({
    data: {
      tokenHash: hashInvitationToken(token),
      accountId: input.accountId,
      email: input.email,
      role: input.role,
      createdBy: actor,
      expiresAt,
    },
  });
  await writeAudit(tx, {
    actor,
    action: "invitation.create",
    entityType: "invitation",
    entityId: row.id,
    after: { accountId: row.accountId, email: row.email, role: row.role, expiresAt: row.expiresAt },
  });
  return {
    id: row.id,
    email: row.email,
    role: input.role,
    invitationUrl: `${deps.config.publicBaseUrl}/portal/invitations/${token}`,
    expiresAt: expiresAt.toISOString(),
  };
}

export function createInvitationService(
  deps: Pick<CoreDeps, "prisma" | "clock" | "config">,
  passwords: PasswordWork,
  mailer: Mailer,
) {
  const { prisma, clock, config } = deps;

  return {
    /**
     * Invites `email` to account `accountId` with `role`. Whether the email already has a sign-in is not told
     * here (it would tell an account's owner about other accounts); acceptance refuses it.
     * @throws AppError not_found for an unknown account.
     */
    async invite(
      accountId: string,
      input: { email: string; role: MemberRole },
      actor: Actor,
    ): Promise<IssuedInvitation> {
      const { invitation, accountName } = await prisma.$transaction(async (tx) => {
        const account = await tx.account.findUnique({ where: { id: accountId }, select: { name: true } });
        if (!account) throw new AppError("not_found", `No account ${accountId}.`);
        return {
          invitation: await insertInvitation(tx, deps, { accountId, ...input }, actor),
          accountName: account.name,
        };
      });
      return { ...invitation, mailed: await mailer(invitationMail(invitation, accountName)) };
    },

    /** The invitation of `token`, while it can be accepted. @throws AppError not_found otherwise. */
    async preview(token: string): Promise<InvitationPreview> {
      const row = await prisma.invitation.findUnique({
        where: { tokenHash: hashInvitationToken(token) },
        include: { account: { select: { name: true } } },
      });
      if (!row || row.acceptedAt || row.expiresAt <= clock()) throw new AppError("not_found", INVALID_LINK);
      return {
        accountName: row.account.name,
        email: row.email,
        role: row.role as MemberRole,
        expiresAt: row.expiresAt.toISOString(),
      };
    },

    /**
     * Accepts an invitation: creates the member with the name and password given and uses the link up.
     * @returns the new member's email (the caller signs them in with it).
     * @throws AppError not_found for a used, expired or unknown link; conflict when the email already has a sign-in.
     */
    async accept(input: InvitationAccept): Promise<{ email: string }> {
      const passwordHash = await passwords.hash(input.password, config.passwordHashCost);
      const now = clock();
      try {
        return await prisma.$transaction(async (tx) => {
          const rows = await tx.$queryRaw<
            { id: string; accountId: string; email: string; role: MemberRole }[]
          >`
            UPDATE "Invitation" SET "acceptedAt" = ${now}
            WHERE "tokenHash" = ${hashInvitationToken(input.token)} AND "acceptedAt" IS NULL AND "expiresAt" > ${now}
            RETURNING "id"::text AS "id", "accountId"::text AS "accountId", "email", "role"::text AS "role"`;
          const invitation = rows[0];
          if (!invitation) throw new AppError("not_found", INVALID_LINK);
          const user = await tx.user.create({
            data: {
              email: invitation.email,
              name: input.name,
              role: invitation.role,
              passwordHash,
              accountId: invitation.accountId,
            },
          });
          await writeAudit(tx, {
            actor: `user:${user.email}`,
            action: "invitation.accept",
            entityType: "invitation",
            entityId: invitation.id,
            after: { accountId: invitation.accountId, userId: user.id, role: user.role },
          });
          return { email: user.email };
        });
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
          throw new AppError("conflict", "This email already has a sign-in: sign in with it instead.");
        throw error;
      }
    },
  };
}

export type InvitationService = ReturnType<typeof createInvitationService>;
