/**
 * Two-factor sign-in with TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps, via `otpauth`) and single-use
 * recovery codes (docs/contract.md section 4 "Two-factor sign-in"). The secret is stored sealed (secrets.ts
 * `createSealer`), recovery codes as SHA-256 only; a code is accepted once (the last accepted step is kept).
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@petstore/contracts";
import type { PrismaClient } from "@petstore/db";
import { Secret, TOTP } from "otpauth";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import { createSealer } from "../secrets.ts";
import { verifyPassword } from "./password.ts";

/** How many recovery codes an enrolment gives. */
export const RECOVERY_CODE_COUNT = 10;
/** Codes of the step before and after the current one are accepted too (clock drift, RFC 6238 section 5.2). */
const WINDOW = 1;
const PERIOD_SECONDS = 30;
/** The DeploymentSetting that makes a second factor required for staff and admins. */
export const STAFF_TWO_FACTOR_SETTING = "staffTwoFactorRequired";

const hashCode = (code: string) => createHash("sha256").update(code).digest("hex");
/** A recovery code as typed: case, spaces and dashes do not matter. */
const normalRecoveryCode = (code: string) => code.replace(/[\s-]/g, "").toLowerCase();

/** `xxxxx-xxxxx` of 10 random base32 characters (50 bits). */
function newRecoveryCode(): string {
  const text = new Secret({ buffer: randomBytes(10).buffer }).base32.slice(0, 10).toLowerCase();
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

const totpOf = (secret: string, label: string) =>
  new TOTP({
    issuer: "Pet Store",
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

/** What a person's security page shows about their second factor. */
export interface TwoFactorStatus {
  enabled: boolean;
  /** Unused recovery codes. */
  recoveryCodesLeft: number;
  /** Whether staff (admins' setting) or the account (its owners' setting) requires a second factor. */
  required: boolean;
}

/** Whether a second factor is required of the person: staff by the deployment setting, members by their account. */
export async function twoFactorRequired(
  prisma: Pick<PrismaClient, "account" | "deploymentSetting">,
  user: { accountId: string | null },
): Promise<boolean> {
  if (user.accountId) {
    const account = await prisma.account.findUnique({
      where: { id: user.accountId },
      select: { requireTwoFactor: true },
    });
    return Boolean(account?.requireTwoFactor);
  }
  const setting = await prisma.deploymentSetting.findUnique({ where: { name: STAFF_TWO_FACTOR_SETTING } });
  return setting?.value === "true";
}

export function createTwoFactorService({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  const sealer = createSealer(prisma, "totp-seal");

  /**
   * Checks a TOTP `code` against `userId`'s confirmed (or, with `pending`, enrolling) secret at the clock's
   * instant and uses its step up. @returns whether it was accepted.
   */
  async function acceptTotp(userId: string, code: string, pending = false): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const user = await prisma.user.findUnique({ where: { id: userId } });
    if (!user?.totpSecret || Boolean(user.totpEnabledAt) === pending) return false;
    const totp = totpOf(await sealer.open(user.totpSecret), user.email);
    const timestamp = clock().getTime();
    const delta = totp.validate({ token: code, timestamp, window: WINDOW });
    if (delta === null) return false;
    const step = Math.floor(timestamp / 1000 / PERIOD_SECONDS) + delta;
    const { count } = await prisma.user.updateMany({
      where: { id: userId, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return count === 1;
  }

  /** Uses up one of `userId`'s recovery codes. @returns whether `code` was one, unused. */
  async function acceptRecoveryCode(userId: string, code: string): Promise<boolean> {
    const normal = normalRecoveryCode(code);
    if (!/^[a-z2-7]{10}$/.test(normal)) return false;
    const { count } = await prisma.recoveryCode.updateMany({
      where: { userId, codeHash: hashCode(`${normal.slice(0, 5)}-${normal.slice(5)}`), usedAt: null },
      data: { usedAt: clock() },
    });
    return count === 1;
  }

  const service = {
    /** `userId`'s second factor as their security page shows it. */
    async status(userId: string): Promise<TwoFactorStatus> {
      const user = await prisma.user.findUniqueOrThrow({
        where: { id: userId },
        select: { totpEnabledAt: true, accountId: true },
      });
      const recoveryCodesLeft = await prisma.recoveryCode.count({ where: { userId, usedAt: null } });
      return {
        enabled: Boolean(user.totpEnabledAt),
        recoveryCodesLeft: user.totpEnabledAt ? recoveryCodesLeft : 0,
        required: await twoFactorRequired(prisma, user),
      };
    },

    /**
     * Starts an enrolment: a new secret (160 bits), stored sealed until a first code confirms it.
     * @returns the secret (base32) and its `otpauth://` URI for an authenticator app, shown once.
     * @throws AppError conflict when a second factor is already on.
     */
    async begin(userId: string): Promise<{ secret: string; uri: string }> {
      const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
      if (user.totpEnabledAt) throw new AppError("conflict", "Two-factor sign-in is already on.");
      const secret = new Secret({ size: 20 }).base32;
      await prisma.user.update({
        where: { id: userId },
        data: { totpSecret: await sealer.seal(secret), totpLastStep: null },
      });
      return { secret, uri: totpOf(secret, user.email).toString() };
    },

    /**
     * Confirms an enrolment with a first `code` of the new secret; turns the second factor on (audited
     * `user.twoFactorEnable`). @returns the recovery codes, shown once (stored as SHA-256 only).
     * @throws AppError validation_failed for a wrong code (or no enrolment begun).
     */
    async confirm(userId: string, code: string, actor: Actor): Promise<{ recoveryCodes: string[] }> {
      if (!(await acceptTotp(userId, code.trim(), true)))
        throw new AppError("validation_failed", "That code is not right. Enter the code your app shows now.");
      const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      await prisma.$transaction(async (tx) => {
        await tx.user.update({ where: { id: userId }, data: { totpEnabledAt: clock() } });
        await tx.recoveryCode.deleteMany({ where: { userId } });
        await tx.recoveryCode.createMany({
          data: recoveryCodes.map((code) => ({ userId, codeHash: hashCode(code) })),
        });
        await writeAudit(tx, {
          actor,
          action: "user.twoFactorEnable",
          entityType: "user",
          entityId: userId,
          after: { recoveryCodes: RECOVERY_CODE_COUNT },
        });
      });
      return { recoveryCodes };
    },

    /**
     * Checks a second-factor code of `userId` at sign-in: a TOTP code (each accepted once) or an unused
     * recovery code (then used up). @returns which kind was accepted, or null.
     */
    async verify(userId: string, code: string): Promise<"totp" | "recovery" | null> {
      const typed = code.trim();
      if (await acceptTotp(userId, typed.replace(/\s/g, ""))) return "totp";
      if (await acceptRecoveryCode(userId, typed)) return "recovery";
      return null;
    },

    /**
     * Turns the second factor off after the person proves it is them: their password or a current code
     * (audited `user.twoFactorDisable`). @throws AppError validation_failed when neither is right.
     */
    async disable(userId: string, proof: { password?: string; code?: string }, actor: Actor): Promise<void> {
      const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
      const proven =
        (proof.password !== undefined && (await verifyPassword(proof.password, user.passwordHash))) ||
        (proof.code !== undefined && (await service.verify(userId, proof.code)) !== null);
      if (!proven)
        throw new AppError("validation_failed", "The password or code is not right.", [
          { path: proof.password !== undefined ? "password" : "code", message: "is not right" },
        ]);
      await prisma.$transaction(async (tx) => {
        await tx.user.update({
          where: { id: userId },
          data: { totpSecret: null, totpEnabledAt: null, totpLastStep: null },
        });
        await tx.recoveryCode.deleteMany({ where: { userId } });
        await writeAudit(tx, {
          actor,
          action: "user.twoFactorDisable",
          entityType: "user",
          entityId: userId,
        });
      });
    },

    /** Whether staff and admins must sign in with a second factor (DeploymentSetting). */
    async staffRequired(): Promise<boolean> {
      return twoFactorRequired(prisma, { accountId: null });
    },

    /** Admins require (or stop requiring) a second factor of staff and admins (audited `user.requireTwoFactor`). */
    async setStaffRequired(required: boolean, actor: Actor): Promise<void> {
      await prisma.$transaction(async (tx) => {
        await tx.deploymentSetting.upsert({
          where: { name: STAFF_TWO_FACTOR_SETTING },
          create: { name: STAFF_TWO_FACTOR_SETTING, value: String(required) },
          update: { value: String(required) },
        });
        await writeAudit(tx, {
          actor,
          action: "user.requireTwoFactor",
          entityType: "user",
          entityId: "staff",
          after: { required },
        });
      });
    },
  };
  return service;
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
