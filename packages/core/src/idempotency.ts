/**
 * Idempotency-Key handling for createPet (docs/contract.md section 1; draft-ietf-httpapi-idempotency-key-header).
 *
 * Per API key and Idempotency-Key, remembered 24 h: the first request reserves the key with a fingerprint
 * of its body; the operation then runs and its response is stored in the same transaction as its effect,
 * so a crash can never leave an animal whose response is not remembered. A retry with the same body
 * replays the stored response; with another body it gets 422; while the first is in flight, 409.
 * A reservation whose request died (no response after 60 s) may be taken over; one whose request the process cut
 * while stopping is released at once (`releaseInFlight`), so the client's retry runs instead of getting 409.
 */
import { hash } from "node:crypto";
import { AppError } from "@petstore/contracts";
import { Prisma } from "@petstore/db";
import type { CoreDeps } from "./deps.ts";

const RETENTION_MS = 24 * 3600_000;
const ABANDONED_AFTER_MS = 60_000;

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** SHA-256 of the body's canonical JSON (object keys sorted), so key order and whitespace do not matter. */
export function fingerprintBody(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return hash("sha256", JSON.stringify(canonical(body)), "hex");
}

export function createIdempotencyService({ prisma, clock }: Pick<CoreDeps, "prisma" | "clock">) {
  const where = (apiKeyId: string, key: string) => ({ apiKeyId_key: { apiKeyId, key } });
  /** Reservations this process holds whose operation has not finished. */
  const inFlight = new Map<string, { apiKeyId: string; key: string }>();

  async function reserve(
    apiKeyId: string,
    key: string,
    fingerprint: string,
  ): Promise<StoredResponse | undefined> {
    const now = clock();
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await prisma.idempotencyRecord.create({
          data: {
            apiKeyId,
            key,
            fingerprint,
            createdAt: now,
            expiresAt: new Date(now.getTime() + RETENTION_MS),
          },
        });
        return undefined;
      } catch (error) {
        if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")) throw error;
      }
      const existing = await prisma.idempotencyRecord.findUnique({ where: where(apiKeyId, key) });
      if (!existing) continue;
      const abandoned =
        !existing.completedAt && now.getTime() - existing.createdAt.getTime() > ABANDONED_AFTER_MS;
      if (existing.expiresAt <= now || abandoned) {
        await prisma.idempotencyRecord.deleteMany({
          where: { apiKeyId, key, createdAt: existing.createdAt },
        });
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new AppError(
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request body.",
        );
      }
      if (!existing.completedAt || existing.responseStatus === null || existing.responseBody === null) {
        throw new AppError(
          "idempotency_key_in_use",
          "A request with this Idempotency-Key is still being processed.",
          undefined,
          {
            "Retry-After": "1",
          },
        );
      }
      return {
        status: existing.responseStatus,
        body: existing.responseBody,
        headers: (existing.responseHeaders ?? {}) as Record<string, string>,
      };
    }
    throw new AppError(
      "idempotency_key_in_use",
      "A request with this Idempotency-Key is still being processed.",
      undefined,
      {
        "Retry-After": "1",
      },
    );
  }

  return {
    /**
     * Runs `operation` at most once per (apiKeyId, key, body). `operation` receives a transaction and
     * returns the response to remember; it is stored in that same transaction.
     * Returns `{ response, replayed }`.
     * @throws AppError idempotency_key_reused (422) or idempotency_key_in_use (409); any error of
     *   `operation` (the reservation is then released so a corrected retry can run).
     */
    async run(
      scope: { apiKeyId: string; key: string; body: unknown },
      operation: (tx: Prisma.TransactionClient) => Promise<StoredResponse>,
    ): Promise<{ response: StoredResponse; replayed: boolean }> {
      const fingerprint = fingerprintBody(scope.body);
      const replay = await reserve(scope.apiKeyId, scope.key, fingerprint);
      if (replay) return { response: replay, replayed: true };
      const id = `${scope.apiKeyId}\u0000${scope.key}`;
      inFlight.set(id, { apiKeyId: scope.apiKeyId, key: scope.key });
      try {
        const response = await prisma.$transaction(async (tx) => {
          const result = await operation(tx);
          await tx.idempotencyRecord.update({
            where: where(scope.apiKeyId, scope.key),
            data: {
              responseStatus: result.status,
              responseBody: result.body,
              responseHeaders: result.headers,
              completedAt: clock(),
            },
          });
          return result;
        });
        return { response, replayed: false };
      } catch (error) {
        await prisma.idempotencyRecord
          .deleteMany({ where: { apiKeyId: scope.apiKeyId, key: scope.key, completedAt: null } })
          .catch(() => undefined);
        throw error;
      } finally {
        inFlight.delete(id);
      }
    },

    /**
     * Releases every reservation of this process whose operation has not completed (the server cut its request
     * while stopping). A completed one is kept: its transaction stored the response, and a retry replays it; one
     * whose transaction is still running is released after it ends, and only if it did not commit.
     * @returns how many reservations were released.
     */
    async releaseInFlight(): Promise<number> {
      const held = [...inFlight.values()];
      inFlight.clear();
      if (!held.length) return 0;
      const { count } = await prisma.idempotencyRecord.deleteMany({
        where: { completedAt: null, OR: held.map(({ apiKeyId, key }) => ({ apiKeyId, key })) },
      });
      return count;
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
