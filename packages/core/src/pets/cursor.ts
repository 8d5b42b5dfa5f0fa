/**
 * Opaque keyset cursors for listPets, listCategories and listOrders (docs/contract.md section 1, "GET /v1/pets
 * (listPets)", "GET /v1/categories (listCategories)" and "GET /v1/store/orders (listOrders)"):
 * `base64url(payload).signature`, where the payload holds the last id seen and the filter it was issued for (the
 * status for listPets, none for categories), and the signature is a truncated
 * HMAC-SHA256 (RFC 2104) under the deployment's cursor secret (CURSOR_SECRET, else the one kept in the database:
 * see secrets.ts), so a tampered, forged or foreign cursor is recognised and answered with 400. A decoded id is
 * range-checked as well, so even a correctly signed cursor cannot reach the database with an id outside
 * 1..2^63-1.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError, MAX_PET_ID } from "@petstore/contracts";
import { BoundedMap } from "../bounded-map.ts";

interface CursorPayload {
  /** The last id of the page (the position to continue from). */
  afterId: bigint;
  /** The query's filter as one string (listPets: the status), absent for none. */
  status?: string | undefined;
}

export interface CursorCodec {
  /** Encodes the position after `afterId` for the query filtered by `status`. */
  encode(payload: CursorPayload): string;
  /**
   * Decodes `cursor` and checks it was issued for the same filter; returns the id to continue from.
   * @throws AppError `validation_failed` (path `cursor`) when it is malformed, tampered, foreign or out of range.
   */
  decode(cursor: string, status: string | undefined): bigint;
}

const DECIMAL_ID = /^[1-9][0-9]{0,18}$/;
/**
 * Cursors a codec remembers, each way: the cursor of a position it issued, and the position of a cursor it issued
 * or verified. A page's cursor is the same text every time, so a list's busy pages cost no HMAC (two a page
 * otherwise: docs/performance.md "Where the time goes"); a forged cursor is never one of them.
 */
const REMEMBERED = 4_096;

/**
 * A codec signing with `secret` (at least 32 characters of key material). `list` names the list the cursors
 * belong to when it is not listPets (`"categories"`, `"orders"`): it is signed with the payload, so a cursor of one list is
 * a foreign cursor (400) to every other. listPets' cursors sign the payload alone, as they always have, so the
 * cursors clients hold stay valid.
 */
export function createCursorCodec(secret: string, list?: string): CursorCodec {
  const signed =
    list === undefined ? (payload: string) => payload : (payload: string) => `${list}\n${payload}`;
  const sign = (payload: string) =>
    createHmac("sha256", secret).update(signed(payload)).digest("base64url").slice(0, 22);
  const invalid = () =>
    new AppError("validation_failed", "Invalid cursor: use the URL from the previous page's Link header.", [
      { path: "cursor", message: "is not a cursor issued for this query" },
    ]);

  function parse(payload: string): { afterId: bigint; status: string | undefined } {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      throw invalid();
    }
    const { a, s } = (parsed ?? {}) as { a?: unknown; s?: unknown };
    if (typeof a !== "string" || !DECIMAL_ID.test(a)) throw invalid();
    const afterId = BigInt(a);
    if (afterId > MAX_PET_ID) throw invalid();
    if (s !== null && typeof s !== "string") throw invalid();
    return { afterId, status: s ?? undefined };
  }

  const issued = new BoundedMap<string, string>(REMEMBERED);
  const known = new BoundedMap<string, CursorPayload>(REMEMBERED);

  return {
    encode({ afterId, status }) {
      const position = `${afterId}:${status ?? ""}`;
      const remembered = issued.get(position);
      if (remembered !== undefined) return remembered;
      const payload = Buffer.from(JSON.stringify({ a: afterId.toString(), s: status ?? null })).toString(
        "base64url",
      );
      const cursor = `${payload}.${sign(payload)}`;
      issued.set(position, cursor);
      known.set(cursor, { afterId, status });
      return cursor;
    },
    decode(cursor, status) {
      const remembered = known.get(cursor);
      if (remembered) {
        if (remembered.status !== status) throw invalid();
        return remembered.afterId;
      }
      const [payload, signature, extra] = cursor.split(".");
      if (!payload || !signature || extra !== undefined) throw invalid();
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
      const decoded = parse(payload);
      known.set(cursor, decoded);
      if (decoded.status !== status) throw invalid();
      return decoded.afterId;
    },
  };
}
