/**
 * Leaked keys (docs/contract.md section 2, "Leaked keys"): GitHub's secret-scanning reports, verified against the
 * operator's copy of GitHub's keys, and the dashboard's "Mark as leaked"; each leak of a live key revokes it (or,
 * with LEAKED_KEYS_ACTION=flag, only marks it), audited, with a `key.leaked` event and a mail to its account's
 * owners (the admins for a key outside accounts). The token itself is never stored or logged: only its hash is
 * compared.
 */
import { verify } from "node:crypto";
import {
  AppError,
  SECRET_SCANNING_MAX_MATCHES,
  type SecretScanningLabel,
  SecretScanningReport,
} from "@petstore/contracts";
import type { ApiKey } from "@petstore/db";
import { writeAudit } from "../audit.ts";
import type { Actor, CoreDeps } from "../deps.ts";
import type { Mailer } from "../mail.ts";
import { type QueuedListener, recordEvents } from "../webhooks/outbox.ts";
import { hashApiKey, parseApiKey } from "./format.ts";
import { isLive } from "./policy.ts";
import { auditView } from "./view.ts";

/** The audit actor of GitHub's reports. */
export const GITHUB_SECRET_SCANNING_ACTOR = "github:secret-scanning";

/** Where a leak was reported from. */
export type LeakSource = "github" | "dashboard";

/** The `data` of a `key.leaked` event (docs/contract.md section 6, "Events"). */
export interface KeyLeakedData {
  id: string;
  prefix: string;
  name: string;
  accountId: string | null;
  leakedAt: string;
  source: LeakSource;
  url: string | null;
  /** Whether the key was revoked (LEAKED_KEYS_ACTION=revoke) or only marked. */
  revoked: boolean;
}

/** A report's signature headers as received (absent: null). */
export interface ReportSignature {
  keyIdentifier: string | null;
  signature: string | null;
}

const unauthorized = (message: string) => new AppError("unauthorized", message);

/** The mail about a leaked key, to an owner of its account or an admin. */
function leakMail(data: KeyLeakedData, accountName: string | null): { subject: string; text: string } {
  const where =
    data.source === "github"
      ? `GitHub's secret scanning found it in public${data.url ? ` at ${data.url}` : ""}`
      : "A store admin marked it as leaked";
  const holder = accountName ? ` of ${accountName}` : "";
  return {
    subject: `API key ${data.prefix}… ("${data.name}")${holder} leaked`,
    text:
      `The API key ${data.prefix}… ("${data.name}")${holder} has leaked: ${where} (${data.leakedAt}).\n\n` +
      (data.revoked
        ? "It was revoked: calls with it are refused. Give the clients that used it a new key."
        : "It still works: roll or revoke it, and give the clients that use it a new key.") +
      (accountName
        ? "\n\nYou get this mail as an owner of the account.\n"
        : "\n\nYou get this mail as an admin of the store: the key belongs to no account.\n"),
  };
}

/**
 * @param forget drops a key from this instance's verification cache (service.ts `forget`).
 * @returns `report` (GitHub's reports), `mark` (the dashboard's), `settled` (resolves when the mails begun so
 *   far are sent).
 */
export function createLeakedKeys(
  { prisma, config, clock, logger }: Pick<CoreDeps, "prisma" | "config" | "clock" | "logger">,
  mailer: Mailer,
  queued: QueuedListener,
  forget: (keyId: string) => void,
) {
  const { action, githubKeys } = config.leakedKeys;
  const mails = new Set<Promise<unknown>>();

  async function mailAbout(data: KeyLeakedData): Promise<void> {
    try {
      const account = data.accountId
        ? await prisma.account.findUnique({ where: { id: data.accountId }, select: { name: true } })
        : null;
      const recipients = await prisma.user.findMany({
        where: data.accountId
          ? { accountId: data.accountId, role: "owner", active: true }
          : { role: "admin", active: true },
        select: { email: true },
        orderBy: { email: "asc" },
      });
      const mail = leakMail(data, account?.name ?? null);
      for (const { email } of recipients)
        if ((await mailer({ to: email, ...mail })) === "off")
          logger.info({ to: email, ...mail }, "leaked key mail (no SMTP_URL: logged instead)");
    } catch (err) {
      logger.warn({ err, keyId: data.id }, "leaked key mail not sent");
    }
  }

  /**
   * Records the leak of key `id` under its row lock: revokes or marks it, audits `apiKey.leak`, writes the
   * `key.leaked` event; then drops it from this instance's cache and mails (not awaited).
   * @returns `leaked` (this call recorded it), `known` (live, its leak recorded before), `dead` (revoked or expired).
   */
  async function leak(
    id: string,
    source: LeakSource,
    url: string | null,
    actor: Actor,
  ): Promise<{ outcome: "leaked" | "known" | "dead"; key: ApiKey }> {
    const now = clock();
    const result = await prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT "id" FROM "ApiKey" WHERE "id" = ${id}::uuid FOR UPDATE`;
      const before = await tx.apiKey.findUniqueOrThrow({ where: { id } });
      if (!isLive(before, now)) return { outcome: "dead" as const, key: before };
      if (before.leakedAt) return { outcome: "known" as const, key: before };
      const revoke = action === "revoke";
      const after = await tx.apiKey.update({
        where: { id },
        data: {
          leakedAt: now,
          leakSource: source,
          leakUrl: url,
          ...(revoke ? { revokedAt: now } : {}),
        },
      });
      await writeAudit(tx, {
        actor,
        action: "apiKey.leak",
        entityType: "apiKey",
        entityId: id,
        before: auditView(before),
        after: auditView(after),
      });
      const data: KeyLeakedData = {
        id,
        prefix: after.prefix,
        name: after.name,
        accountId: after.accountId,
        leakedAt: now.toISOString(),
        source,
        url,
        revoked: revoke,
      };
      const deliveries = await recordEvents(tx, [
        { type: "key.leaked", data: { ...data }, accountId: after.accountId },
      ]);
      return { outcome: "leaked" as const, key: after, data, deliveries };
    });
    if (result.outcome === "leaked") {
      forget(id);
      if (result.deliveries) queued(result.deliveries);
      const sending = mailAbout(result.data);
      mails.add(sending);
      void sending.finally(() => mails.delete(sending));
    }
    return { outcome: result.outcome, key: result.key };
  }

  /** Whether `signature` (base64, DER) is a valid ECDSA P-256 SHA-256 signature of `body` by a configured key. */
  function verifySignature(body: Uint8Array, { keyIdentifier, signature }: ReportSignature): void {
    if (!keyIdentifier || !signature)
      throw unauthorized("The report has no Github-Public-Key-Identifier or Github-Public-Key-Signature.");
    const key = githubKeys.find((k) => k.id === keyIdentifier);
    if (!key) throw unauthorized("The report is signed with a key this deployment does not know.");
    let valid = false;
    try {
      valid = verify("sha256", body, key.pem, Buffer.from(signature, "base64"));
    } catch {
      valid = false;
    }
    if (!valid) throw unauthorized("The report's signature does not match its body.");
  }

  return {
    /**
     * Takes a GitHub secret-scanning report: `body` as received (the signature covers these bytes), verified with
     * the configured keys before anything is read. Each token that is a live key of this deployment is revoked
     * (or marked) before this resolves.
     * @returns one label per match, in order (`true_positive`: a live key of ours).
     * @throws AppError not_found (no keys configured), unauthorized (signature missing, of an unknown key, or
     *   wrong), invalid_request (not JSON), validation_failed (not a report).
     */
    async report(body: Uint8Array, signature: ReportSignature): Promise<SecretScanningLabel[]> {
      if (githubKeys.length === 0)
        throw new AppError(
          "not_found",
          "This deployment takes no secret-scanning reports (SECRET_SCANNING_KEYS_FILE is not set).",
        );
      verifySignature(body, signature);
      let json: unknown;
      try {
        json = JSON.parse(Buffer.from(body).toString("utf8"));
      } catch {
        throw new AppError("invalid_request", "The report is not JSON.");
      }
      const parsed = SecretScanningReport.safeParse(json);
      if (!parsed.success)
        throw new AppError(
          "validation_failed",
          `The report must be an array of at most ${SECRET_SCANNING_MAX_MATCHES} {"token", "type", "url", "source"}.`,
        );
      const matches = parsed.data;
      const hashes = matches.map((m) => (parseApiKey(m.token) ? hashApiKey(m.token) : null));
      const wanted = [...new Set(hashes.filter((h): h is string => h !== null))];
      const rows = wanted.length
        ? await prisma.apiKey.findMany({ where: { hash: { in: wanted } }, select: { id: true, hash: true } })
        : [];
      const idByHash = new Map(rows.map((r) => [r.hash, r.id]));
      const liveByHash = new Map<string, boolean>();
      for (const [i, match] of matches.entries()) {
        const hash = hashes[i];
        const id = hash ? idByHash.get(hash) : undefined;
        if (!hash || !id || liveByHash.has(hash)) continue;
        const { outcome } = await leak(id, "github", match.url ?? null, GITHUB_SECRET_SCANNING_ACTOR);
        liveByHash.set(hash, outcome !== "dead");
      }
      return matches.map((m, i) => {
        const hash = hashes[i];
        return {
          token_raw: m.token,
          token_type: m.type,
          label: hash && liveByHash.get(hash) ? "true_positive" : "false_positive",
        };
      });
    },

    /**
     * The dashboard's "Mark as leaked" of key `id` by `actor`: as a report would (revoked or marked, audited,
     * event, mail); a key already marked stays as it is.
     * @returns the key's id. @throws AppError not_found; validation_failed for a revoked or expired key.
     */
    async mark(id: string, actor: Actor): Promise<string> {
      const exists = await prisma.apiKey.findUnique({ where: { id }, select: { id: true } });
      if (!exists) throw new AppError("not_found", `No API key ${id}.`);
      const { outcome, key } = await leak(id, "dashboard", null, actor);
      if (outcome === "dead")
        throw new AppError(
          "validation_failed",
          `Key ${key.prefix}… is ${key.revokedAt && key.revokedAt <= clock() ? "revoked" : "expired"} already: it cannot be used, so it needs no marking.`,
        );
      return id;
    },

    async settled(): Promise<void> {
      while (mails.size) await Promise.all([...mails]);
    },
  };
}

export type LeakedKeys = ReturnType<typeof createLeakedKeys>;
