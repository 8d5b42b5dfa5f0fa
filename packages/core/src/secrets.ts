/**
 * Secrets the service makes for itself when configuration gives none (table ServerSecret). The first
 * instance to need one inserts 32 random bytes; an instance racing it loses the insert (ON CONFLICT DO
 * NOTHING) and reads the winner's value, so every instance and restart on one database agrees.
 * `createSealer` seals short secrets under one of them for storage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { PrismaClient } from "@petstore/db";

/** The secret called `name` (base64url text), created on first use. */
export async function ensureServerSecret(prisma: PrismaClient, name: string): Promise<string> {
  await prisma.serverSecret.createMany({
    data: [{ name, value: randomBytes(32).toString("base64url") }],
    skipDuplicates: true,
  });
  const row = await prisma.serverSecret.findUniqueOrThrow({ where: { name } });
  return row.value;
}

/** Seals short secrets for storage (AES-256-GCM under a server secret) and opens them again. */
export interface Sealer {
  /** `v1.<iv>.<ciphertext>.<tag>` (base64url parts) of `plain`. */
  seal(plain: string): Promise<string>;
  /** The text `seal` sealed. @throws when `sealed` was not sealed with this key or was altered. */
  open(sealed: string): Promise<string>;
}

/**
 * A `Sealer` keyed by the server secret `name` (created on first use, `ensureServerSecret`), so a database row
 * never holds the secret in clear and a copied row alone does not give it away.
 */
export function createSealer(prisma: PrismaClient, name: string): Sealer {
  let key: Promise<Buffer> | undefined;
  const keyOf = () => {
    key ??= ensureServerSecret(prisma, name).then(
      (value) => Buffer.from(value, "base64url"),
      (error: unknown) => {
        key = undefined;
        throw error;
      },
    );
    return key;
  };
  return {
    async seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", await keyOf(), iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return ["v1", iv, body, cipher.getAuthTag()]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    async open(sealed) {
      const [version, iv, body, tag] = sealed.split(".");
      if (version !== "v1" || !iv || body === undefined || !tag) throw new Error("not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", await keyOf(), Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    },
  };
}
