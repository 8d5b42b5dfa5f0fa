/**
 * Opaque keyset cursors for listPets (PRODUCT.md section 1, "Paging"): `base64url(payload).signature`,
 * where the payload holds the last id seen and the status filter it was issued for, and the signature is a
 * truncated HMAC-SHA256 so a tampered or foreign cursor is recognised and answered with 400.
 * Cursors grant nothing (they only say where a page starts), so the key only guards integrity.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError, type PetStatus } from "@petstore/contracts";

const SIGNING_KEY = "petstore.listPets.cursor.v1";

interface CursorPayload {
  afterId: bigint;
  status?: PetStatus;
}

function sign(payload: string): string {
  return createHmac("sha256", SIGNING_KEY).update(payload).digest("base64url").slice(0, 22);
}

/** Encodes the position after `afterId` for the query filtered by `status`. */
export function encodeCursor({ afterId, status }: CursorPayload): string {
  const payload = Buffer.from(JSON.stringify({ a: afterId.toString(), s: status ?? null })).toString(
    "base64url",
  );
  return `${payload}.${sign(payload)}`;
}

/**
 * Decodes `cursor` and checks it was issued for the same `status` filter.
 * @throws AppError `validation_failed` (path `cursor`) when it is malformed, tampered or foreign.
 */
export function decodeCursor(cursor: string, status: PetStatus | undefined): bigint {
  const invalid = () =>
    new AppError("validation_failed", "Invalid cursor: use the URL from the previous page's Link header.", [
      { path: "cursor", message: "is not a cursor issued for this query" },
    ]);
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) throw invalid();
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  try {
    const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      a: string;
      s: string | null;
    };
    if ((parsed.s ?? undefined) !== status || !/^[0-9]{1,19}$/.test(parsed.a)) throw invalid();
    return BigInt(parsed.a);
  } catch {
    throw invalid();
  }
}
