/**
 * Helpers shared by the REST suites: a server per describe block (`useServer`), and `call`, which sends a
 * request (in-process by default, over the socket for a suite about HTTP itself; harness.ts), reads the body
 * and checks the response both against the served OpenAPI document (for a documented operation) and against
 * the invariants of every /v1 response (docs/contract.md section 1).
 */
import net from "node:net";
import { databaseOf } from "@petstore/core/testing";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, expect } from "vitest";
import {
  type DatabaseKind,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from "../support/harness.ts";
import { OpenApiResponseValidator } from "../support/openapi-validator.ts";

export type OperationId =
  | "listPets"
  | "createPet"
  | "getPet"
  | "updatePet"
  | "listOrders"
  | "createOrder"
  | "getOrder"
  | "completeOrder"
  | "cancelOrder"
  | "getInventory"
  | "listCategories"
  | "getMe";

/**
 * How `call` reaches the server: `in-process` hands a `Request` to the REST fetch handler after the client
 * address stamp (no socket, no HTTP parsing); `socket` sends it with `fetch` over HTTP/1.1 to `baseUrl`.
 */
export type Transport = "in-process" | "socket";

export interface CallResult {
  status: number;
  headers: Headers;
  /** Parsed JSON body (`undefined` for an empty body, e.g. HEAD). */
  body: unknown;
  text: string;
}

/** A JSON Error body (docs/contract.md section 1). */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
  details?: { path: string; message: string }[];
}

export interface Ctx {
  s: TestServer;
  v: OpenApiResponseValidator;
  doc: Record<string, unknown>;
  /** `Authorization` header for the harness key (or `key`). */
  auth(key?: string): Record<string, string>;
  /**
   * Sends `init` to `path` and checks the response: against `operationId`'s OpenAPI responses when given
   * (pass `null` for paths that are no operation: 404/405/openapi.json), and the common /v1 invariants.
   */
  call(operationId: OperationId | null, path: string, init?: RequestInit): Promise<CallResult>;
  /** POST /v1/pets with a JSON body (a string is sent as is) and the harness key. */
  create(body: unknown, headers?: Record<string, string>): Promise<CallResult>;
  /** Number of animals in the database. */
  petCount(): Promise<number>;
  /** This context with `call` (and `create`) over the socket, for a test whose subject is HTTP on the wire. */
  viaSocket(): Ctx;
}

const SECRET_KEY = /pet_(live|test)_[0-9A-Za-z]{38}/;
/** What must never reach a client: stack frames, file paths, SQL, driver and ORM names. */
const LEAK =
  /\bat [^\s"]+ \(|:\d+:\d+\)|node_modules|\.[jt]s:\d|prisma|SELECT |INSERT |postgres|pglite|Error:|stack/i;

/** A schema library's wording ("Too small: expected string to have >=1 characters", "Invalid option: ..."). */
export const SCHEMA_WORDING =
  /Too (small|big)|Invalid (input|option|type|string|format|key|element|union)\b|\bexpected\b|\breceived\b|[<>]=|\bNaN\b|\bundefined\b|Unrecognized key/;

/** Asserts an Error body speaks plain words: its message and every detail's message. */
export function expectPlainWords(e: ErrorBody): void {
  for (const message of [e.message, ...(e.details ?? []).map((d) => d.message)])
    expect(message, JSON.stringify(e)).not.toMatch(SCHEMA_WORDING);
}

/**
 * The invariants of every /v1 response, documented operation or not: JSON (but a 304 and a CORS preflight's 204,
 * which have no content), `Cache-Control: no-store` unless the answer to a GET has an ETag (a page, an animal, an
 * order, the inventory, the document; never an error; the animal a write answers carries its ETag, no-store).
 */
export function expectCommonResponse(
  r: CallResult,
  errorSchema: (body: unknown) => boolean,
  method = "GET",
): void {
  if (r.status === 304 || r.status === 204) {
    expect(r.headers.get("content-type")).toBeNull();
    expect(r.text).toBe("");
  } else expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
  if (r.headers.has("etag") && r.status < 400 && ["GET", "HEAD"].includes(method.toUpperCase()))
    expect(["private, no-cache, must-revalidate", "public, max-age=300"]).toContain(
      r.headers.get("cache-control"),
    );
  else expect(r.headers.get("cache-control")).toBe("no-store");
  expect(r.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  expect(r.text).not.toMatch(SECRET_KEY);
  if (r.status >= 400) {
    expect(errorSchema(r.body), `error body ${r.text}`).toBe(true);
    const e = r.body as ErrorBody;
    expect(e.status).toBe(r.status);
    expect(e.message.length).toBeGreaterThan(0);
    expectPlainWords(e);
    expect(r.text).not.toMatch(LEAK);
  }
}

/**
 * Starts a server for `kind` before the block's tests (`call` going through `options.transport`, in-process
 * unless said) and closes it after them.
 */
export function useServer(
  kind: DatabaseKind,
  options: TestServerOptions & { transport?: Transport } = {},
): Ctx {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    const s = await startTestServer(kind, options);
    Object.assign(ctx, await ctxFor(s, options.transport));
  });
  afterAll(async () => {
    await ctx.s?.close();
  });
  return ctx;
}

/** A `Ctx` for the running server `s`, its OpenAPI document read from it; `call` goes through `transport`. */
export async function ctxFor(s: TestServer, transport: Transport = "in-process"): Promise<Ctx> {
  const doc = (await (await s.fetch("/v1/openapi.json")).json()) as Record<string, unknown>;
  return makeCtx(s, new OpenApiResponseValidator(doc), doc, transport);
}

/** A `Ctx` for `s`, checking responses with `v` and `doc`; `call` goes through `transport`. */
export function makeCtx(
  s: TestServer,
  v: OpenApiResponseValidator,
  doc: Record<string, unknown>,
  transport: Transport = "in-process",
): Ctx {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, "openapi.json");
  const errorSchema = ajv.compile({ $ref: "openapi.json#/components/schemas/Error" });
  const auth = (key = s.key) => ({ authorization: `Bearer ${key}` });
  const call: Ctx["call"] = async (operationId, path, init = {}) => {
    const response =
      transport === "socket"
        ? await fetch(`${s.baseUrl}${path}`, { redirect: "manual", ...init })
        : await s.fetch(path, init);
    const text = await response.text();
    let body: unknown;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(
          `${init.method ?? "GET"} ${path}: ${response.status} body is not JSON: ${text.slice(0, 200)}`,
        );
      }
    }
    if (operationId && init.method !== "HEAD") {
      expect(
        v.check(operationId, response, text),
        `${operationId} ${response.status} ${text.slice(0, 300)}`,
      ).toEqual([]);
    }
    const result = { status: response.status, headers: response.headers, body, text };
    if (init.method !== "HEAD") expectCommonResponse(result, (b) => errorSchema(b), init.method);
    return result;
  };
  let socket: Ctx | undefined;
  const ctx: Ctx = {
    s,
    v,
    doc,
    auth,
    call,
    viaSocket: () => {
      if (transport === "socket") return ctx;
      socket ??= makeCtx(s, v, doc, "socket");
      return socket;
    },
    create: (body, headers = {}) =>
      call("createPet", "/v1/pets", {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    petCount: () => databaseOf(s.rt).prisma.pet.count(),
  };
  return ctx;
}

/** Asserts `r` reveals nothing of a failure's internals (SQL, table names, file paths, the thrown message). */
export function expectNoLeak(r: CallResult): void {
  for (const fragment of ["SELECT", "api_keys", "node_modules", "relation", "violates", "$1", "boom"]) {
    expect(r.text).not.toContain(fragment);
  }
}

/** Asserts `r` is the 503 `service_unavailable` of an unreachable database: Retry-After, nothing internal. */
export function expectUnavailable(r: CallResult): void {
  const e = expectError(r, 503, "service_unavailable");
  expect(r.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
  expect(e.message.length).toBeGreaterThan(0);
  expectNoLeak(r);
  expect(r.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|5432|PGlite|closed/i);
}

/** Asserts `r` is the Error `code` with `status` and returns its body. */
export function expectError(r: CallResult, status: number, code: string): ErrorBody {
  expect({ status: r.status, code: (r.body as ErrorBody | undefined)?.code }, r.text).toEqual({
    status,
    code,
  });
  return r.body as ErrorBody;
}

/** Inserts `count` animals straight into the database (fast seeding); returns their ids ascending. */
export async function seedPets(
  s: TestServer,
  count: number,
  make: (i: number) => { name?: string; status?: "available" | "pending" | "sold" | null } = () => ({}),
): Promise<number[]> {
  const rows = await databaseOf(s.rt).prisma.pet.createManyAndReturn({
    data: Array.from({ length: count }, (_, i) => {
      const m = make(i);
      return {
        name: m.name ?? `seed ${i}`,
        categoryId: BigInt(s.categoryIds[i % s.categoryIds.length] ?? 1),
        status: m.status ?? null,
      };
    }),
    select: { id: true },
  });
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Parses `Link: <url>; rel="next"` (RFC 8288); undefined when absent. */
export function nextLink(headers: Headers): string | undefined {
  const link = headers.get("link");
  if (!link) return undefined;
  return /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1];
}

/** Turns an absolute link under the public base URL into a path for the test server. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/**
 * Writes a raw HTTP/1.1 request on a socket (for header bytes fetch refuses to send) and returns the
 * status, lower-cased headers and body of the response.
 */
export function rawRequest(
  baseUrl: string,
  lines: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const u = new URL(baseUrl);
  const body = lines.body ?? "";
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => {
      const head = [
        `${lines.method} ${lines.path} HTTP/1.1`,
        `Host: ${u.host}`,
        "Connection: close",
        ...Object.entries(lines.headers).map(([k, v]) => `${k}: ${v}`),
        `Content-Length: ${Buffer.byteLength(body)}`,
      ];
      socket.write(Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), Buffer.from(body)]));
    });
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
  });
}
