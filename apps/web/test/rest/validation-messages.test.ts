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
import { SCHEMA_WORDING, seedPets, useServer } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: walking a parsed OpenAPI document
type Json = Record<string, any>;

/** The constraints of a JSON Schema the cases must cover (annotations such as format and default are not rules). */
const RULE_KEYWORDS = ["type", "enum", "pattern", "minLength", "maxLength", "minimum", "maximum"] as const;

interface Case {
  operation:
    | "listPets"
    | "createPet"
    | "getPet"
    | "updatePet"
    | "listCategories"
    | "listOrders"
    | "createOrder"
    | "getOrder"
    | "completeOrder"
    | "cancelOrder";
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
const ordersQuery = rule("listOrders", "query");
const path = rule("getPet", "path");
const header = rule("createPet", "header");
const body = rule("createPet", "body");
const patch = rule("updatePet", "body");
const order = rule("createOrder", "body");

const WHOLE_1_TO_100 = "must be a whole number from 1 to 100";
const PET_ID = "must be a whole number from 1 to 9223372036854775807";
const IDEMPOTENCY_KEY = "must be 1 to 255 printable ASCII characters";
const STATUS = "must be one of available, pending, sold";
const ORDER_STATUS = "must be one of placed, completed, cancelled, expired";

/** The four rules of an id in a path (getPet's `petId`), for `operation`'s `field`. */
const idPath = (operation: Case["operation"], field: string): Case[] => {
  const at = rule(operation, "path");
  return [
    at(field, "type", "rex", PET_ID),
    at(field, "minimum", "0", PET_ID),
    at(field, "maximum", "9223372036854775808", PET_ID),
    at(field, "decimal without leading zeros", "007", PET_ID),
  ];
};

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
  ...idPath("updatePet", "petId"),
  ...idPath("getOrder", "orderId"),
  ...idPath("completeOrder", "orderId"),
  ...idPath("cancelOrder", "orderId"),
  ordersQuery("limit", "type", "ten", WHOLE_1_TO_100),
  ordersQuery("limit", "minimum", "0", WHOLE_1_TO_100),
  ordersQuery("limit", "maximum", "101", "must be at most 100"),
  ordersQuery("status", "enum", "lost", ORDER_STATUS),
  ordersQuery("status", "type", ["placed", "expired"], ORDER_STATUS),
  ordersQuery("petId", "type", "rex", PET_ID),
  ordersQuery("petId", "minimum", "0", PET_ID),
  ordersQuery("petId", "maximum", "9223372036854775808", PET_ID),
  ordersQuery("cursor", "type", ["a", "b"], "must be given once"),
  ordersQuery("cursor", "minLength", "", "must not be empty"),
  ordersQuery("cursor", "maxLength", "c".repeat(201), "must be at most 200 characters"),
  ordersQuery(
    "cursor",
    "signed by the service",
    "not-a-cursor",
    "is not a cursor issued for this query",
    "Invalid cursor: use the URL from the previous page's Link header.",
  ),
  rule("createOrder", "header")("idempotency-key", "minLength", "", IDEMPOTENCY_KEY),
  rule("createOrder", "header")("idempotency-key", "maxLength", "k".repeat(256), IDEMPOTENCY_KEY),
  rule("createOrder", "header")("idempotency-key", "pattern", "order\t1", IDEMPOTENCY_KEY),
  order("petId", "required", OMIT, "is required"),
  order("petId", "type", "1", "must be an integer"),
  order("petId", "minimum", 0, "must be at least 1"),
  order("petId", "maximum", 2 ** 53, "is too large"),
  order(
    "petId",
    "an existing animal",
    999_999,
    "no animal with id 999999",
    "Invalid petId: no animal with id 999999.",
  ),
  order("holdMinutes", "type", "30", "must be a whole number from 1 to 1440"),
  order("holdMinutes", "minimum", 0, "must be at least 1"),
  order("holdMinutes", "maximum", 1441, "must be at most 1440"),
  order("colour", "additionalProperties", "brown", "unknown property: colour"),
  rule("completeOrder", "body")("colour", "additionalProperties", "brown", "unknown property: colour"),
  rule("cancelOrder", "body")("colour", "additionalProperties", "brown", "unknown property: colour"),
  patch("name", "type", 42, "must be a string"),
  patch("name", "removed", null, "must be a string"),
  patch("name", "minLength", "", "must not be empty"),
  patch("name", "maxLength", "x".repeat(101), "must be at most 100 characters"),
  patch("categoryId", "type", "1", "must be an integer"),
  patch("categoryId", "removed", null, "must be an integer"),
  patch("categoryId", "minimum", 0, "must be at least 1"),
  patch("categoryId", "maximum", 2 ** 53, "is too large"),
  patch(
    "categoryId",
    "an existing category",
    999_999,
    "no category with id 999999",
    "Invalid categoryId: no category with id 999999.",
  ),
  patch("status", "enum", "lost", STATUS),
  patch("status", "type", 42, STATUS),
  patch("colour", "additionalProperties", "brown", "unknown property: colour"),
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
  "listOrders header If-None-Match type": "a header value is always text",
  "getOrder header If-None-Match type": "a header value is always text",
  "getInventory header If-None-Match type": "a header value is always text",
  "createOrder header idempotency-key type": "a header value is always text",
  // If-Match is read, never refused: a value that names no current tag is the 412 of a changed animal.
  "updatePet header If-Match type": "a header value is always text",
};

const key = (c: Pick<Case, "operation" | "in" | "field" | "rule">) =>
  `${c.operation} ${c.in} ${c.field} ${c.rule}`;

describe("validation messages", () => {
  const t = useServer("postgres");
  let doc: Json;
  /** A sold animal: an order of it or a change of it that passed validation would show. */
  let existingPet = 0;

  beforeAll(async () => {
    doc = t.doc as Json;
    [existingPet = 0] = await seedPets(t.s, 1, () => ({ status: "sold" }));
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
        for (const [field, property] of Object.entries((object.properties ?? {}) as Json))
          add(
            operation,
            "body",
            field,
            resolve(property as Json),
            ((object.required ?? []) as string[]).includes(field),
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

  /** `body` as JSON to `path` by `method`, with the harness key. */
  const json = (operation: Case["operation"], method: string, path: string, body: unknown, headers = {}) =>
    t.call(operation, path, {
      method,
      headers: { ...t.auth(), "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  async function send(c: Case) {
    const categoryId = t.s.categoryIds[0] ?? 1;
    const lists = { listPets: "pets", listCategories: "categories", listOrders: "store/orders" } as const;
    if (c.operation === "listPets" || c.operation === "listCategories" || c.operation === "listOrders") {
      const values = Array.isArray(c.send) ? c.send : [c.send];
      const query = values.map((v) => `${c.field}=${encodeURIComponent(String(v))}`).join("&");
      return t.call(c.operation, `/v1/${lists[c.operation]}?${query}`, { headers: t.auth() });
    }
    const with_ = (base: Record<string, unknown>) => {
      const body = { ...base };
      if (c.send === OMIT) delete body[c.field];
      else body[c.field] = c.send;
      return body;
    };
    const petId = existingPet;
    switch (c.operation) {
      case "getPet":
        return t.call("getPet", `/v1/pets/${c.send}`, { headers: t.auth() });
      case "getOrder":
        return t.call("getOrder", `/v1/store/orders/${c.send}`, { headers: t.auth() });
      case "completeOrder":
      case "cancelOrder": {
        const action = c.operation === "completeOrder" ? "complete" : "cancel";
        return c.in === "path"
          ? t.call(c.operation, `/v1/store/orders/${c.send}/${action}`, { method: "POST", headers: t.auth() })
          : json(c.operation, "POST", `/v1/store/orders/1/${action}`, with_({}));
      }
      case "updatePet":
        return c.in === "path"
          ? json("updatePet", "PATCH", `/v1/pets/${c.send}`, {})
          : json("updatePet", "PATCH", `/v1/pets/${petId}`, with_({}));
      case "createOrder":
        return c.in === "header"
          ? json("createOrder", "POST", "/v1/store/orders", { petId }, { [c.field]: String(c.send) })
          : json("createOrder", "POST", "/v1/store/orders", with_({ petId }));
      default:
        if (c.in === "header") return t.create({ name: "Rex", categoryId }, { [c.field]: String(c.send) });
        return t.create(with_({ name: "Rex", categoryId, status: "available" }));
    }
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
