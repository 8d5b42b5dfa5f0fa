/**
 * Property-based fuzzing of every operation (fast-check): random JSON bodies, raw bytes, query strings,
 * path ids, header values and paths. Whatever comes in, the answer is never a 5xx, always JSON (checked
 * against the OpenAPI document by `call`), the documented 2xx exactly when an independent oracle written
 * from docs/contract.md says the input is valid, the documented 4xx code otherwise, and a rejected request
 * never creates a row. Seeded for reproducibility (override with FC_SEED).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { propertyRuns } from "../support/common.ts";
import { type CallResult, type ErrorBody, seedPets, useServer } from "./support.ts";

const params = propertyRuns(100, 20_301_205);

const STATUSES = ["available", "pending", "sold"];
const MAX_ID = 2n ** 63n - 1n;
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Printable latin-1 (what fetch lets us put in a header), and a few characters near the edges. */
const headerChar = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.constantFrom(" ", "\t", "\u00a0", "é", "ÿ", "\x80"),
);
const saneChar = fc.constantFrom(..."abcXYZ019._-".split(""));

/**
 * A name as the text rule words it (packages/contracts/src/text.ts): NFC-normalised and trimmed, 1..100 UTF-16 units, no control
 * (C0/C1) or bidi embedding/override/isolate characters, no lone surrogates, some visible character.
 */
function nameProblem(name: string): boolean {
  const n = name.normalize("NFC").trim();
  if (n.length < 1 || n.length > 100) return true;
  const forbidden = (c: number) =>
    c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
  if ([...n].some((c) => forbidden(c.codePointAt(0) ?? 0) || (c.length === 1 && /[\ud800-\udfff]/.test(c))))
    return true;
  return !/[\p{L}\p{N}\p{P}\p{S}]/u.test(n.replace(/\p{Default_Ignorable_Code_Point}/gu, ""));
}

/** What docs/contract.md section 1 says about a NewPet, independently of the zod contract. */
function newPetProblem(
  value: unknown,
  categories: number[],
): "invalid_request" | "validation_failed" | "unknown_category" | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "invalid_request";
  const body = value as Record<string, unknown>;
  if (Object.keys(body).some((k) => !["name", "categoryId", "status"].includes(k)))
    return "validation_failed";
  const { name, categoryId, status } = body;
  if (typeof name !== "string" || nameProblem(name)) return "validation_failed";
  if (typeof categoryId !== "number" || !Number.isSafeInteger(categoryId) || categoryId < 1)
    return "validation_failed";
  if ("status" in body && !STATUSES.includes(status as string)) return "validation_failed";
  if (!categories.includes(categoryId)) return "unknown_category";
  return undefined;
}

describe("property-based (postgres)", () => {
  const t = useServer("postgres");
  let existing: number[] = [];
  let counter = 0;

  beforeAll(async () => {
    existing = await seedPets(t.s, 5, (i) => ({ status: i % 2 ? "sold" : null }));
  });

  /** Asserts the response is a 4xx Error with one of `codes`. */
  function expectRejected(r: CallResult, codes: string[]) {
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    expect(r.status, r.text).toBeLessThan(500);
    expect(codes).toContain((r.body as ErrorBody).code);
  }

  /** Sends a createPet body and checks the outcome against the oracle and the row count. */
  async function createAndCheck(text: string, headers: Record<string, string> = {}) {
    const before = await t.petCount();
    const r = await t.create(text, headers);
    expect(r.status).toBeLessThan(500);
    let parsed: unknown;
    let problem: ReturnType<typeof newPetProblem> | "payload_too_large";
    try {
      parsed = JSON.parse(text);
      problem = newPetProblem(parsed, t.s.categoryIds);
    } catch {
      problem = "invalid_request";
    }
    if (Buffer.byteLength(text) > 16 * 1024) problem = "payload_too_large";
    if (problem === undefined) {
      expect(r.status, r.text).toBe(201);
      const body = parsed as { name: string; categoryId: number; status?: string };
      expect(r.body).toMatchObject({ name: body.name.normalize("NFC").trim(), categoryId: body.categoryId });
      expect(await t.petCount()).toBe(before + 1);
    } else {
      const code = problem === "unknown_category" ? "validation_failed" : problem;
      expect({ status: r.status, code: (r.body as ErrorBody).code }, r.text).toEqual({
        status: problem === "payload_too_large" ? 413 : 400,
        code,
      });
      if (problem === "unknown_category") expect((r.body as ErrorBody).details?.[0]?.path).toBe("categoryId");
      expect(await t.petCount()).toBe(before);
    }
    return r;
  }

  describe("createPet", () => {
    it("random JSON values: 400 invalid_request unless an object, never a row for a rejected one", async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (value) => {
          await createAndCheck(JSON.stringify(value));
        }),
        params,
      );
    });

    it("random objects around NewPet (wrong types, extra keys, unknown categories)", async () => {
      // Mostly valid values, so that about a third of the bodies should be accepted.
      const name = fc.oneof(
        { arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 100 }), weight: 6 },
        { arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 95, maxLength: 105 }), weight: 1 },
        { arbitrary: fc.constantFrom("", "   ", "\t\n", " Rex ", "\u00a0x\u00a0"), weight: 1 },
        {
          arbitrary: fc.constantFrom(
            "a\u0000b",
            "\u200b\u200b",
            "\u202eevil",
            "Cafe\u0301",
            "x\ud800",
            "\u3164",
          ),
          weight: 1,
        },
        { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
      );
      const categoryId = fc.oneof(
        { arbitrary: fc.constantFrom(1, 2, 3), weight: 8 },
        { arbitrary: fc.integer({ min: -5, max: 2_000_000 }), weight: 1 },
        { arbitrary: fc.double({ noNaN: false }), weight: 1 },
        { arbitrary: fc.constantFrom(2 ** 53, 2 ** 63, Number("1e400"), -0, 1.5, 0, 3.0), weight: 1 },
        { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
      );
      const status = fc.oneof(
        { arbitrary: fc.constantFrom(...STATUSES), weight: 6 },
        { arbitrary: fc.string({ maxLength: 10 }), weight: 1 },
        { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
      );
      const extras = fc.oneof(
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), {
          minKeys: 1,
          maxKeys: 3,
        }),
        fc.constantFrom(
          { id: 7 },
          JSON.parse('{"__proto__":{"admin":true}}') as object,
          { constructor: 1 },
          { Name: "x" },
        ),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.record({ name, categoryId, status }, { requiredKeys: ["name", "categoryId"] }),
          extras,
          fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
          async (known, extra, withExtra) => {
            const body: Record<string, unknown> = withExtra ? { ...extra, ...known } : { ...known };
            // Now and then drop a required field.
            if (withExtra && "Name" in body) delete body.name;
            await createAndCheck(JSON.stringify(body));
          },
        ),
        params,
      );
    });

    it("random bytes as the body", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.uint8Array({ maxLength: 64 }),
            fc.string({ unit: "binary", maxLength: 64 }).map((s) => new TextEncoder().encode(s)),
            fc
              .string({ maxLength: 20 })
              .map((s) =>
                new TextEncoder().encode(`{"name":${JSON.stringify(s)},"categoryId":1${s.slice(0, 2)}}`),
              ),
          ),
          async (bytes) => {
            const text = new TextDecoder().decode(bytes);
            const before = await t.petCount();
            const r = await t.call("createPet", "/v1/pets", {
              method: "POST",
              headers: { ...t.auth(), "content-type": "application/json" },
              body: bytes as unknown as BodyInit,
            });
            let expected: number;
            try {
              expected = newPetProblem(JSON.parse(text), t.s.categoryIds) === undefined ? 201 : 400;
            } catch {
              expected = 400;
            }
            expect(r.status, `${text} -> ${r.text}`).toBe(expected);
            expect(await t.petCount()).toBe(before + (r.status === 201 ? 1 : 0));
          },
        ),
        params,
      );
    });

    it("random Content-Type: 201 for JSON, 415 otherwise, a row only on 201", async () => {
      const type = fc.oneof(
        fc.constantFrom(
          "application/json",
          "APPLICATION/JSON",
          "application/json; charset=utf-8",
          "text/json",
        ),
        fc.string({ unit: headerChar, maxLength: 30 }),
        fc.string({ unit: headerChar, maxLength: 20 }).map((s) => `application/json${s}`),
        fc.string({ unit: headerChar, maxLength: 20 }).map((s) => `${s}application/json`),
      );
      await fc.assert(
        fc.asyncProperty(type, async (contentType) => {
          const before = await t.petCount();
          const r = await t.create(
            { name: `ct ${++counter}`, categoryId: 1 },
            { "content-type": contentType },
          );
          expect([201, 415], `${JSON.stringify(contentType)} -> ${r.text}`).toContain(r.status);
          if (r.status === 415) expect((r.body as ErrorBody).code).toBe("unsupported_media_type");
          if (r.status === 201)
            expect(contentType.trim().toLowerCase().startsWith("application/json")).toBe(true);
          expect(await t.petCount()).toBe(before + (r.status === 201 ? 1 : 0));
        }),
        params,
      );
    });

    it("random Idempotency-Key values: 201 when 1..255 printable ASCII, else 400 and no row", async () => {
      const key = fc.oneof(
        fc.string({ unit: headerChar, minLength: 1, maxLength: 40 }),
        fc.string({ unit: saneChar, minLength: 240, maxLength: 270 }),
      );
      await fc.assert(
        fc.asyncProperty(key, async (raw) => {
          const value = `${++counter}${raw}`;
          const sent = value.replace(/^[ \t]+|[ \t]+$/g, "");
          const before = await t.petCount();
          const r = await t.create({ name: `idem ${counter}`, categoryId: 1 }, { "idempotency-key": value });
          const valid = sent.length >= 1 && sent.length <= 255 && /^[\x20-\x7e]+$/.test(sent);
          if (valid) {
            expect(r.status, r.text).toBe(201);
            expect(r.headers.get("idempotent-replayed")).toBeNull();
          } else {
            expectRejected(r, ["validation_failed"]);
            expect(r.status).toBe(400);
          }
          expect(await t.petCount()).toBe(before + (valid ? 1 : 0));
        }),
        params,
      );
    });
  });

  describe("listPets", () => {
    it("random query parameters: 200 exactly when limit and status are valid and no cursor is forged", async () => {
      const limit = fc.oneof(
        fc.integer({ min: -5, max: 110 }).map(String),
        fc.string({ maxLength: 6 }),
        fc.constantFrom("007", "1.0", "1e1", "+1", " 1", "100", "0x10", "٣"),
      );
      const status = fc.oneof(fc.constantFrom(...STATUSES), fc.string({ maxLength: 10 }));
      const query = fc.record(
        {
          limit,
          status,
          cursor: fc.string({ maxLength: 30 }),
          other: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
        },
        { requiredKeys: ["other"] },
      );
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const values: Record<string, string> = { ...q.other };
          for (const name of ["limit", "status", "cursor"] as const)
            if (q[name] !== undefined) values[name] = q[name];
          const search = new URLSearchParams(values).toString();
          const r = await t.call("listPets", `/v1/pets?${search}`, { headers: t.auth() });
          const limitOk =
            values.limit === undefined || (/^[1-9][0-9]*$/.test(values.limit) && +values.limit <= 100);
          const statusOk = values.status === undefined || STATUSES.includes(values.status);
          const ok = limitOk && statusOk && values.cursor === undefined;
          if (ok) {
            expect(r.status, `${search} -> ${r.text}`).toBe(200);
            const items = r.body as { id: number; status?: string }[];
            expect(items.length).toBeLessThanOrEqual(values.limit ? +values.limit : 20);
            if (values.status) expect(items.every((a) => a.status === values.status)).toBe(true);
          } else {
            expect(r.status, `${search} -> ${r.text}`).toBe(400);
            const e = r.body as ErrorBody;
            expect(e.code).toBe("validation_failed");
            for (const d of e.details ?? []) expect(["limit", "status", "cursor"]).toContain(d.path);
          }
        }),
        params,
      );
    });

    it("random raw query strings never cause a 5xx", async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: "binary", maxLength: 40 }), async (raw) => {
          const r = await t.call("listPets", `/v1/pets?${encodeURI(raw.replace(/[\ud800-\udfff]/g, ""))}`, {
            headers: t.auth(),
          });
          expect([200, 400]).toContain(r.status);
        }),
        params,
      );
    });
  });

  describe("getPet", () => {
    it("random path ids: 200/404 for 1..2^63-1, 400 validation_failed otherwise", async () => {
      const id = fc.oneof(
        fc.constantFrom(...existing.map(String)),
        fc.bigInt({ min: -10n, max: 2n ** 64n }).map(String),
        fc.integer({ min: 1, max: 1_000_000 }).map(String),
        fc.string({ maxLength: 12 }).filter((s) => s.length > 0 && s !== "." && s !== ".."),
        fc.double().map(String),
        fc.stringMatching(/^[0-9]{15,22}$/),
      );
      await fc.assert(
        fc.asyncProperty(id, async (petId) => {
          const r = await t.call("getPet", `/v1/pets/${encodeURIComponent(petId)}`, { headers: t.auth() });
          const inRange = /^[1-9][0-9]{0,18}$/.test(petId) && BigInt(petId) <= MAX_ID;
          if (!inRange) {
            expect(r.status, `${petId} -> ${r.text}`).toBe(400);
            expect((r.body as ErrorBody).code).toBe("validation_failed");
          } else if (existing.includes(Number(petId)) && BigInt(petId) <= BigInt(Number.MAX_SAFE_INTEGER)) {
            expect(r.status).toBe(200);
            expect((r.body as { id: number }).id).toBe(Number(petId));
          } else {
            expect([200, 404]).toContain(r.status);
            if (r.status === 404) expect((r.body as ErrorBody).code).toBe("not_found");
          }
          expect(r.headers.get("deprecation")).toBe("@1767225600");
        }),
        params,
      );
    });
  });

  describe("headers", () => {
    const operations = [
      (h: Record<string, string>) => t.call("listPets", "/v1/pets", { headers: h }),
      (h: Record<string, string>) => t.create({ name: "h", categoryId: 1 }, { ...h }),
      (h: Record<string, string>) => t.call("getPet", `/v1/pets/${existing[0]}`, { headers: h }),
      (h: Record<string, string>) => t.call("listOrders", "/v1/store/orders", { headers: h }),
    ];

    it("random Authorization values are 401 invalid_token on every operation, creating nothing", async () => {
      const value = fc.oneof(
        fc.string({ unit: headerChar, maxLength: 60 }),
        fc.string({ unit: headerChar, maxLength: 60 }).map((s) => `Bearer ${s}`),
        fc.string({ unit: saneChar, minLength: 38, maxLength: 38 }).map((s) => `Bearer pet_test_${s}`),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: operations.length - 1 }),
          value,
          async (op, authorization) => {
            const before = await t.petCount();
            const r = await operations[op]?.({ authorization });
            if (!r) throw new Error("no operation");
            expectRejected(r, ["unauthorized"]);
            expect(r.status).toBe(401);
            expect(r.headers.get("www-authenticate")).toContain('error="invalid_token"');
            expect(await t.petCount()).toBe(before);
          },
        ),
        params,
      );
    });

    it("random X-Request-Id values are echoed exactly when sane, else replaced", async () => {
      const value = fc.oneof(
        fc.string({ unit: saneChar, minLength: 1, maxLength: 140 }),
        fc.string({ unit: headerChar, minLength: 1, maxLength: 40 }),
      );
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: operations.length - 1 }), value, async (op, id) => {
          const r = await operations[op]?.({ ...t.auth(), "x-request-id": id });
          const got = r?.headers.get("x-request-id") ?? "";
          const sent = id.replace(/^[ \t]+|[ \t]+$/g, "");
          if (SANE_ID.test(sent)) expect(got).toBe(sent);
          else {
            expect(got).not.toBe(sent);
            expect(got).toMatch(SANE_ID);
          }
        }),
        params,
      );
    });
  });

  it("random methods and paths under /v1 never cause a 5xx and never create a row", async () => {
    const segment = fc.oneof(
      fc.constantFrom("pets", "store", "orders", "openapi.json", "1", "0", "v1", "PETS", "..%2F", "%00"),
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
    );
    const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");
    await fc.assert(
      fc.asyncProperty(
        method,
        fc.array(segment, { minLength: 0, maxLength: 4 }),
        fc.boolean(),
        async (m, segments, withKey) => {
          const before = await t.petCount();
          const r = await t.call(null, `/v1/${segments.join("/")}`, {
            method: m,
            headers: withKey ? t.auth() : {},
          });
          expect(r.status, `${m} /v1/${segments.join("/")} -> ${r.text}`).toBeLessThan(500);
          expect(await t.petCount()).toBe(before);
        },
      ),
      params,
    );
  });
});
