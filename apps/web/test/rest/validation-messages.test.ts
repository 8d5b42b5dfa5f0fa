/**
 * Every validation failure speaks plain words (docs/contract.md section 1, "Error body"). The rules are read
 * from the served OpenAPI document: every parameter (query, path, header) and every request-body property of
 * every operation, with each constraint the document states for it (type, required, enum, pattern, minLength,
 * maxLength, minimum, maximum, and no unknown properties). Each is broken in turn over HTTP, as are the rules the
 * document states in words (the text rule of names, an unknown category, a forged cursor): the answer is 400
 * `validation_failed` whose `details` name the field with the exact message, and whose message repeats it,
 * never a schema library's wording. A rule added to a request schema without a case here fails the test.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_WORDING, useServer } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: walking a parsed OpenAPI document
type Json = Record<string, any>;

/** The constraints of a JSON Schema the cases must cover (annotations such as format and default are not rules). */
const RULE_KEYWORDS = ["type", "enum", "pattern", "minLength", "maxLength", "minimum", "maximum"] as const;

interface Case {
  operation: "listPets" | "createPet" | "getPet" | "listCategories";
  in: "query" | "path" | "header" | "body";
  field: string;
  /** A keyword of RULE_KEYWORDS, `required`, `additionalProperties`, or a rule the document states in words. */
  rule: string;
  /** What is sent: a query value (an array repeats the parameter), a path segment, a header, a body property. */
  send: unknown;
  /** `details[].message` expected for `field`. */
  message: string;
  /** The top-level message, when it is not `Invalid <field>: <message>`. */
  summary?: string;
}

const OMIT = Symbol("omit");

const rule =
  (operation: Case["operation"], where: Case["in"]) =>
  (field: string, rule: string, send: unknown, message: string, summary?: string): Case => ({
    operation,
    in: where,
    field,
    rule,
    send,
    message,
    ...(summary ? { summary } : {}),
  });
const query = rule("listPets", "query");
const categoriesQuery = rule("listCategories", "query");
const path = rule("getPet", "path");
const header = rule("createPet", "header");
const body = rule("createPet", "body");

const WHOLE_1_TO_100 = "must be a whole number from 1 to 100";
const PET_ID = "must be a whole number from 1 to 9223372036854775807";
const IDEMPOTENCY_KEY = "must be 1 to 255 printable ASCII characters";
const STATUS = "must be one of available, pending, sold";

const CASES: Case[] = [
  query("limit", "type", "ten", WHOLE_1_TO_100),
  query("limit", "minimum", "0", WHOLE_1_TO_100),
  query("limit", "maximum", "101", "must be at most 100"),
  query("limit", "decimal without leading zeros", "020", WHOLE_1_TO_100),
  query("limit", "given once", ["5", "10"], "must be given once"),
  query("status", "enum", "lost", STATUS),
  query("status", "type", ["sold", "pending"], STATUS),
  query("cursor", "type", ["a", "b"], "must be given once"),
  query("cursor", "minLength", "", "must not be empty"),
  query("cursor", "maxLength", "c".repeat(201), "must be at most 200 characters"),
  query(
    "cursor",
    "signed by the service",
    "not-a-cursor",
    "is not a cursor issued for this query",
    "Invalid cursor: use the URL from the previous page's Link header.",
  ),
  categoriesQuery("limit", "type", "ten", WHOLE_1_TO_100),
  categoriesQuery("limit", "minimum", "0", WHOLE_1_TO_100),
  categoriesQuery("limit", "maximum", "101", "must be at most 100"),
  categoriesQuery("limit", "decimal without leading zeros", "020", WHOLE_1_TO_100),
  categoriesQuery("limit", "given once", ["5", "10"], "must be given once"),
  categoriesQuery("cursor", "type", ["a", "b"], "must be given once"),
  categoriesQuery("cursor", "minLength", "", "must not be empty"),
  categoriesQuery("cursor", "maxLength", "c".repeat(201), "must be at most 200 characters"),
  categoriesQuery(
    "cursor",
    "signed by the service",
    "not-a-cursor",
    "is not a cursor issued for this query",
    "Invalid cursor: use the URL from the previous page's Link header.",
  ),
  path("petId", "type", "rex", PET_ID),
  path("petId", "minimum", "0", PET_ID),
  path("petId", "maximum", "9223372036854775808", PET_ID),
  path("petId", "decimal without leading zeros", "007", PET_ID),
  header("idempotency-key", "minLength", "", IDEMPOTENCY_KEY),
  header("idempotency-key", "maxLength", "k".repeat(256), IDEMPOTENCY_KEY),
  header("idempotency-key", "pattern", "order\t1", IDEMPOTENCY_KEY),
  body("name", "required", OMIT, "is required"),
  body("name", "type", 42, "must be a string"),
  body("name", "type (null)", null, "must be a string"),
  body("name", "minLength", "", "must not be empty"),
  body("name", "trimmed", " \t ", "must not be empty"),
  body("name", "maxLength", "x".repeat(101), "must be at most 100 characters"),
  body("name", "no control characters", "Re\u0000x", "must not contain control characters"),
  body("name", "no bidirectional controls", "Rex\u202e", "must not contain bidirectional control characters"),
  body("name", "a visible character", "\u200b\u200b", "must contain a visible character"),
  body("name", "Unicode text", "Re\ud800x", "must be valid Unicode text"),
  body("categoryId", "required", OMIT, "is required"),
  body("categoryId", "type", "1", "must be an integer"),
  body("categoryId", "type (fraction)", 1.5, "must be an integer"),
  body("categoryId", "minimum", 0, "must be at least 1"),
  body("categoryId", "maximum", 2 ** 53, "is too large"),
  body(
    "categoryId",
    "an existing category",
    999_999,
    "no category with id 999999",
    "Invalid categoryId: no category with id 999999.",
  ),
  body("status", "enum", "lost", STATUS),
  body("status", "type", null, STATUS),
  body("colour", "additionalProperties", "brown", "unknown property: colour"),
];

/** Rules of the document no request can break, and why. */
const UNBREAKABLE: Record<string, string> = {
  "createPet header idempotency-key type": "a header value is always text",
  // If-None-Match is read, never refused: a value that names no current tag gets the 200.
  "listPets header If-None-Match type": "a header value is always text",
  "getPet header If-None-Match type": "a header value is always text",
  "listCategories header If-None-Match type": "a header value is always text",
};

const key = (c: Pick<Case, "operation" | "in" | "field" | "rule">) =>
  `${c.operation} ${c.in} ${c.field} ${c.rule}`;

describe("validation messages", () => {
  const t = useServer("postgres");
  let doc: Json;

  beforeAll(() => {
    doc = t.doc as Json;
  });

  const resolve = (node: Json): Json => {
    if (typeof node.$ref !== "string") return node;
    return resolve(
      node.$ref
        .replace(/^#\//, "")
        .split("/")
        .reduce((n: Json, part: string) => n[part], doc),
    );
  };

  /** Every rule the document states for the requests of the operations, as `<operation> <in> <field> <rule>`. */
  function documentedRules(): string[] {
    const rules: string[] = [];
    const add = (operation: string, where: string, field: string, schema: Json, required: boolean) => {
      if (required) rules.push(`${operation} ${where} ${field} required`);
      for (const keyword of RULE_KEYWORDS)
        if (keyword in schema) rules.push(`${operation} ${where} ${field} ${keyword}`);
    };
    for (const item of Object.values(doc.paths as Json)) {
      for (const op of Object.values(item as Json) as Json[]) {
        const operation = op.operationId as string;
        for (const raw of (op.parameters ?? []) as Json[]) {
          const param = resolve(raw);
          // A path parameter cannot be left out: without it the request is for another path.
          add(operation, param.in, param.name, resolve(param.schema), param.required && param.in !== "path");
        }
        const body = op.requestBody?.content?.["application/json"]?.schema;
        if (!body) continue;
        const object = resolve(body);
        for (const [field, property] of Object.entries(object.properties as Json))
          add(
            operation,
            "body",
            field,
            resolve(property as Json),
            (object.required as string[]).includes(field),
          );
        // Any unknown property: the case names one.
        if (object.additionalProperties === false) {
          const unknown = CASES.find((c) => c.operation === operation && c.rule === "additionalProperties");
          rules.push(`${operation} body ${unknown?.field ?? "(no case)"} additionalProperties`);
        }
      }
    }
    return rules;
  }

  it("has a case for every rule the document states for a request", () => {
    const rules = documentedRules();
    // The walk finds the operations' inputs (a sanity check of the walk itself).
    expect(rules).toEqual(
      expect.arrayContaining(["listPets query limit maximum", "createPet body name required"]),
    );
    const covered = new Set([...CASES.map(key), ...Object.keys(UNBREAKABLE)]);
    expect(rules.filter((rule) => !covered.has(rule))).toEqual([]);
  });

  async function send(c: Case) {
    const categoryId = t.s.categoryIds[0] ?? 1;
    if (c.operation === "listPets" || c.operation === "listCategories") {
      const values = Array.isArray(c.send) ? c.send : [c.send];
      const query = values.map((v) => `${c.field}=${encodeURIComponent(String(v))}`).join("&");
      const list = c.operation === "listPets" ? "pets" : "categories";
      return t.call(c.operation, `/v1/${list}?${query}`, { headers: t.auth() });
    }
    if (c.operation === "getPet") return t.call("getPet", `/v1/pets/${c.send}`, { headers: t.auth() });
    if (c.in === "header") return t.create({ name: "Rex", categoryId }, { [c.field]: String(c.send) });
    const body: Record<string, unknown> = { name: "Rex", categoryId, status: "available" };
    if (c.send === OMIT) delete body[c.field];
    else body[c.field] = c.send;
    return t.create(body);
  }

  it.each(CASES.map((c) => [key(c), c] as const))("%s: says so in plain words", async (_name, c) => {
    const before = await t.petCount();
    const r = await send(c);
    expect(r.status, r.text).toBe(400);
    const error = r.body as { code: string; message: string; details: { path: string; message: string }[] };
    expect(error.code).toBe("validation_failed");
    expect(error.details).toContainEqual({ path: c.field, message: c.message });
    expect(error.details.filter((d) => d.path === c.field)).toHaveLength(1);
    expect(error.message).toBe(c.summary ?? `Invalid ${c.field}: ${c.message}`);
    for (const message of [error.message, ...error.details.map((d) => d.message)])
      expect(message).not.toMatch(SCHEMA_WORDING);
    expect(await t.petCount()).toBe(before);
  });
});
