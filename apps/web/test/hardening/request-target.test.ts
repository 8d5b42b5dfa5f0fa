/**
 * One request target, decided once (src/server/http/request-target.ts): the router's static-file exemption, its
 * roles and the dashboard budget read the same path as the handler it hands the request to. A table of
 * spellings (dot segments, percent-encoded ones, percent-encoded unreserved characters, empty segments,
 * backslashes, fragments, absolute-form) x roles (api, dashboard, all), sent as raw bytes (clients resolve dot
 * segments before they send) to the router on a listen(0) server, with recording stand-ins for the REST app, the
 * operational endpoints and Next, and a limiter that records what it counts. No role hands a request to a
 * handler outside its set, under any spelling. Node's parser refuses some spellings itself (a backslash in the
 * authority): a JSON 400 as well, as server.ts answers them.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { loadConfig, type ServeRole } from "@petstore/config";
import { createLogger, type Runtime } from "@petstore/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../src/server/http/router.ts";
import { answerClientError } from "../../src/server/plain-responses.ts";

type Handler = "api" | "ops" | "dashboard";

/** What one request came to: the handler and the target it was given, whether the budget counted it. */
interface Outcome {
  status: number;
  handler?: Handler;
  url?: string;
  counted: boolean;
}

/**
 * Spellings and the path they are served as (undefined: refused with a JSON 400 `invalid_request`). Paths that
 * only differ by a spelling of the same characters are one path; dot segments, backslashes and fragments are never
 * resolved, empty segments never merged.
 */
const SPELLINGS: [target: string, served: string | undefined][] = [
  ["/v1/pets/1", "/v1/pets/1"],
  ["/docs", "/docs"],
  ["/_next/static/app.js", "/_next/static/app.js"],
  ["/.well-known/security.txt", "/.well-known/security.txt"],
  ["/v1/pets/...", "/v1/pets/..."],
  ["/v1/pets?name=/../admin", "/v1/pets?name=/../admin"],
  // Dot segments, as sent and percent-encoded: never resolved.
  ["/_next/../v1/pets/1", undefined],
  ["/%5F%6Eext/../v1/pets/1", undefined],
  ["/_next/%2e%2e/v1/pets/1", undefined],
  ["/_next/.%2E/v1/pets/1", undefined],
  ["/_next/%2E./docs", undefined],
  ["/_next/../docs", undefined],
  ["/vendor/../api/trpc/auth.me", undefined],
  ["/healthz/../v1/pets/1", undefined],
  ["/v1/../admin", undefined],
  ["/v1/./pets/1", undefined],
  ["/v1/pets/1/..", undefined],
  ["/v1/pets/%2e", undefined],
  ["/_next/static/.", undefined],
  // Backslashes and fragments, which the handlers' URL parser reads as a slash and as the path's end: refused.
  ["/_next\\..\\v1/pets/1", undefined],
  ["/v1#/pets", undefined],
  ["/_next/static/app.js#/../../v1/pets/1", undefined],
  // Percent-encoded unreserved characters: the same path (RFC 3986 section 6.2.2.2).
  ["/%76%31/pets/1", "/v1/pets/1"],
  ["/%5F%6Eext/static/app.js", "/_next/static/app.js"],
  ["/%64ocs", "/docs"],
  ["/v1/pets/%7E1?q=%41", "/v1/pets/~1?q=%41"],
  ["/v1%2Fpets", "/v1%2Fpets"],
  ["/%68ealthz", "/healthz"],
  // Empty segments: kept as sent (Next redirects them to the merged path, which is routed as its own request).
  ["//v1/pets/1", "//v1/pets/1"],
  ["/v1//pets/1", "/v1//pets/1"],
  ["/_next//static/app.js", "/_next//static/app.js"],
  // Absolute-form: the path it names, by the same rules.
  ["http://elsewhere.example/v1/pets/1", "/v1/pets/1"],
  ["http://elsewhere.example/_next/../v1/pets/1", undefined],
  ["http://elsewhere.example\\..\\v1/pets/1", undefined],
];

const ROLES: ServeRole[] = ["api", "dashboard", "all"];

/** The handler `role` serves `path` with (undefined: the router's own 404), by docs/operations.md "Roles". */
function ownerOf(role: ServeRole, path: string): Handler | undefined {
  const bare = path.split("?")[0] ?? path;
  if (["/healthz", "/readyz", "/metrics"].includes(bare)) return "ops";
  if (isRest(bare)) return role !== "dashboard" || bare === "/v1/openapi.json" ? "api" : undefined;
  return role === "api" ? undefined : "dashboard";
}

const isRest = (path: string) => path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?");

/** Whether a request for `path` counts against the dashboard budget (Next's static files do not). */
const counts = (role: ServeRole, path: string) => {
  const owner = ownerOf(role, path);
  const file = path.startsWith("/_next/") && !path.includes("//");
  return owner === "dashboard" ? !file : owner === undefined && !isRest(path);
};

/**
 * Sends `target` as it is, with `hosts` as its Host headers (one each), over one connection; resolves with the
 * status and the body.
 */
async function rawGet(
  port: number,
  target: string,
  hosts: string[] = ["localhost"],
): Promise<{ status: number; body: string }> {
  const socket = net.connect(port, "127.0.0.1");
  const host = hosts.map((h) => `Host: ${h}\r\n`).join("");
  socket.end(`GET ${target} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
  let text = "";
  for await (const chunk of socket) text += chunk.toString();
  const [head = "", body = ""] = text.split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body };
}

describe.each(ROLES)("the %s role", (role) => {
  let server: http.Server;
  let port: number;
  const counted: string[] = [];

  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: "postgres://unused/unused", PETSTORE_SERVE: role });
    const recorder = (handler: Handler) => (req: http.IncomingMessage, res: http.ServerResponse) => {
      const body = JSON.stringify({ handler, url: req.url });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    };
    const runtime = {
      config,
      health: async () => undefined,
      sessions: { isKnown: () => false },
      rateLimiter: {
        checkAnonymous: async (_ip: string, scope: string) => {
          counted.push(scope);
          return { allowed: true };
        },
        holdRefusal: async () => undefined,
      },
      logger: createLogger("silent"),
    } as unknown as Pick<Runtime, "rateLimiter" | "sessions" | "config" | "health" | "logger">;
    server = http.createServer(
      { requireHostHeader: false },
      createRouter({
        role,
        runtime,
        api: recorder("api"),
        ops: recorder("ops"),
        ...(role === "api" ? {} : { dashboard: recorder("dashboard") }),
      }),
    );
    // As server.ts: a target Node's parser rejects is a JSON 400 too.
    server.on("clientError", answerClientError);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ["the same name twice", ["localhost", "localhost"]],
    ["two names", ["localhost", "internal.example"]],
    ["two spellings of the name", ["localhost", "LOCALHOST:80"]],
  ])(
    "refuses two Host headers (%s) with a 400 before any handler (RFC 9112 section 3.2)",
    async (_, hosts) => {
      for (const target of ["/v1/pets/1", "/healthz", "/docs"]) {
        counted.length = 0;
        const { status, body } = await rawGet(port, target, hosts);
        expect({ status, counted: counted.length }, target).toEqual({ status: 400, counted: 0 });
        const json = JSON.parse(body) as { handler?: Handler; code?: string; message?: string };
        expect(json.handler, target).toBeUndefined();
        expect(json.code, target).toBe("invalid_request");
        expect(json.message, target).toMatch(/one Host header/);
      }
      // One Host header is served as ever.
      expect((await rawGet(port, "/healthz", ["localhost"])).status).toBe(200);
    },
  );

  it.each(SPELLINGS)("%s is served as %s, by the role's own handler", async (target, served) => {
    counted.length = 0;
    const { status, body } = await rawGet(port, target);
    const json = JSON.parse(body) as { handler?: Handler; url?: string; code?: string };
    const outcome: Outcome = {
      status,
      ...(json.handler ? { handler: json.handler, url: json.url } : {}),
      counted: counted.includes("dashboard"),
    };
    if (served === undefined) {
      expect(outcome).toEqual({ status: 400, counted: false });
      expect(json.code).toBe("invalid_request");
      return;
    }
    const owner = ownerOf(role, served);
    expect(outcome).toEqual({
      status: owner ? 200 : 404,
      ...(owner ? { handler: owner, url: served } : {}),
      counted: counts(role, served),
    });
  });
});
