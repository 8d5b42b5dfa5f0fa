/**
 * Tracing (docs/operations.md "Tracing") against a local OTLP/HTTP receiver: what server.ts builds (the router
 * over the REST app and the operational endpoints) in this process, with the SDK started as server.ts starts it
 * (tracing/sdk.ts), on PostgreSQL and Redis. A request with `traceparent` gives a server span in that trace, child
 * of the caller's span, with PostgreSQL and Redis spans below it and the trace id in its log line; a webhook
 * attempt is a trace of its own whose `traceparent` reaches the receiver; without an endpoint nothing is set up,
 * and the production bundle loads the SDK only through a dynamic import.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { trace } from "@opentelemetry/api";
import { loadConfig } from "@petstore/config";
import { createLogger, openRuntime, type Runtime } from "@petstore/core";
import {
  createMigratedDatabase,
  deleteKeys,
  eventually,
  startWebhookReceiver,
  type WebhookReceiver,
} from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboardApiFetch } from "../../src/server/dashboard-api.ts";
import { fetchListener } from "../../src/server/http/fetch-listener.ts";
import { createRouter } from "../../src/server/http/router.ts";
import { createOpsFetch } from "../../src/server/ops/handler.ts";
import { createRestFetch } from "../../src/server/rest/handler.ts";
import { startTracing, type Tracing } from "../../src/server/tracing/sdk.ts";
import { ensureBuild, SERVER_BUNDLE, WEB_DIR } from "../instances/production-server.ts";
import { collectLogLines } from "../support/log-lines.ts";

/** A span as OTLP/JSON encodes it (ids in hex, attributes as key/value pairs). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
const SERVER = 2;
const CLIENT = 3;

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

/** The OTLP/HTTP collector: every exported span, from the JSON bodies the exporter posts to /v1/traces. */
async function startOtlpReceiver() {
  const spans: OtlpSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  const contentTypes = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      contentTypes.add(String(req.headers["content-type"]));
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: Record<string, unknown> }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        resources.push(
          Object.fromEntries(rs.resource.attributes.map((a) => [a.key, Object.values(a.value)[0]])),
        );
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    resources,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN_ID = "00f067aa0ba902b7";

describe("tracing over OTLP/HTTP", () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let tracing: Tracing;
  let rt: Runtime;
  let server: http.Server;
  let baseUrl: string;
  let key: string;
  let drop: () => Promise<void>;
  const prefix = `petstore-test:tracing:${process.pid}`;
  let lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    // Before anything is set up: no endpoint, or OTEL_SDK_DISABLED, means no tracing configuration (server.ts then
    // imports no SDK), and nothing is registered with the API yet: its tracer makes non-recording spans.
    expect(loadConfig({ OTEL_SERVICE_NAME: "x" }).tracing).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }).tracing,
    ).toBeUndefined();
    expect(trace.getTracer("t").startSpan("s").isRecording()).toBe(false);

    const temp = await createMigratedDatabase("petstore_tracing");
    drop = () => temp.drop();
    receiver = await startOtlpReceiver();
    const config = loadConfig({
      DATABASE_URL: temp.url,
      REDIS_URL: "redis://127.0.0.1:6379",
      RATE_LIMIT_PREFIX: prefix,
      PASSWORD_HASH_COST: "10",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ""),
      OTEL_SERVICE_NAME: "petstore-under-test",
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOKS_RETRY_SCHEDULE: "1h",
    });
    tracing = await startTracing(config.tracing as NonNullable<typeof config.tracing>);
    const logs = collectLogLines();
    lines = logs.lines;
    rt = await openRuntime({ config, logger: createLogger("info", logs.sink) });
    key = (await rt.apiKeys.create({ name: "tracing", plan: "free" }, "test")).key;
    server = http.createServer(
      createRouter({
        role: "api",
        runtime: rt,
        api: fetchListener(
          createRestFetch(async () => rt),
          config.trustProxy,
        ),
        ops: fetchListener(createOpsFetch({ config, runtime: async () => rt }), config.trustProxy),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await rt?.close();
    await tracing?.shutdown();
    await receiver?.close();
    await deleteKeys(prefix);
    await drop?.();
  });

  /** The exported spans of trace `traceId`, once `has` holds for them (bounded). */
  async function spansOf(traceId: string, has: (spans: OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
    return eventually(async () => {
      await tracing.forceFlush();
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      if (!has(spans)) throw new Error(`spans of ${traceId} so far: ${spans.map((s) => s.name).join(", ")}`);
      return spans;
    }, 5_000);
  }

  /** Whether `span` is one SQL statement: Prisma's own, or a direct statement of the hot path. */
  const isStatement = (span: OtlpSpan) =>
    span.name === "prisma:client:db_query" || (span.name === "postgresql" && span.kind === CLIENT);

  /** Whether `span` descends from the span `ancestorId` within `spans`. */
  const descends = (span: OtlpSpan, ancestorId: string, spans: OtlpSpan[]): boolean => {
    for (let s: OtlpSpan | undefined = span; s; s = spans.find((p) => p.spanId === s?.parentSpanId))
      if (s.parentSpanId === ancestorId) return true;
    return false;
  };

  it("continues the caller's trace: a server span, PostgreSQL and Redis spans below it, the ids in the log line", async () => {
    const res = await fetch(`${baseUrl}/v1/pets?limit=1`, {
      headers: {
        authorization: `Bearer ${key}`,
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
        tracestate: "vendor=value",
      },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const spans = await spansOf(
      TRACE_ID,
      (s) =>
        s.some((x) => x.kind === SERVER) &&
        s.some(isStatement) &&
        s.some((x) => attribute(x, "db.system.name") === "redis"),
    );
    const request = spans.find((s) => s.kind === SERVER) as OtlpSpan;
    expect(request).toMatchObject({ name: "GET /v1/pets", parentSpanId: CALLER_SPAN_ID });
    expect(attribute(request, "http.request.method")).toBe("GET");
    expect(attribute(request, "url.path")).toBe("/v1/pets");
    expect(attribute(request, "http.route")).toBe("/v1/pets");
    expect(Number(attribute(request, "http.response.status_code"))).toBe(200);

    const queries = spans.filter(isStatement);
    for (const query of queries) expect(descends(query, request.spanId, spans)).toBe(true);
    expect(queries.some((q) => String(attribute(q, "db.query.text")).includes('"Pet"'))).toBe(true);
    const redis = spans.filter((s) => attribute(s, "db.system.name") === "redis");
    for (const command of redis) {
      expect(command.kind).toBe(CLIENT);
      expect(descends(command, request.spanId, spans)).toBe(true);
    }
    expect(redis.map((s) => s.name)).toContain("EVALSHA");
    expect(receiver.contentTypes).toEqual(new Set(["application/json"]));
    expect(receiver.resources[0]?.["service.name"]).toBe("petstore-under-test");

    const line = lines.find((l) => l.msg === "request" && l.route === "/v1/pets");
    expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: request.spanId });
  });

  it("starts a trace for a request without traceparent, outside /v1 too", async () => {
    const res = await fetch(`${baseUrl}/healthz`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const line = await eventually(async () => {
      const found = lines.find((l) => l.msg === "request" && l.route === "/healthz");
      if (!found) throw new Error("no log line yet");
      return found;
    });
    const traceId = String(line.trace_id);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const [span] = await spansOf(traceId, (s) => s.some((x) => x.kind === SERVER));
    expect(span).toMatchObject({ name: "GET /healthz", spanId: line.span_id });
    expect(span?.parentSpanId || undefined).toBeUndefined();
  });

  it("gives the dashboard API's spans http.route /api/trpc/:procedure, named after the procedure", async () => {
    // A dashboard instance's router, its pages stubbed: the JSON API is answered in this process.
    const dashboard = http.createServer(
      createRouter({
        role: "dashboard",
        runtime: rt,
        api: (_req, res) => res.end(),
        ops: fetchListener(createOpsFetch({ config: rt.config, runtime: async () => rt }), 0),
        dashboard: (_req, res) => res.end(),
        dashboardApi: fetchListener(createDashboardApiFetch(rt), 0),
      }),
    );
    await new Promise<void>((resolve) => dashboard.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = dashboard.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/api/trpc/auth.me`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const line = await eventually(async () => {
        const found = lines.find((l) => l.msg === "request" && l.route === "trpc:auth.me");
        if (!found) throw new Error("no log line yet");
        return found;
      });
      const spans = await spansOf(String(line.trace_id), (s) => s.some((x) => x.kind === SERVER));
      const span = spans.find((x) => x.kind === SERVER) as OtlpSpan;
      expect(span).toMatchObject({ name: "GET trpc:auth.me", spanId: line.span_id });
      expect(attribute(span, "http.route")).toBe("/api/trpc/:procedure");
    } finally {
      dashboard.closeAllConnections();
      await new Promise<void>((resolve) => dashboard.close(() => resolve()));
    }
  });

  it("sends each webhook attempt with the traceparent of its own span", async () => {
    const hooks: WebhookReceiver = await startWebhookReceiver();
    try {
      const endpoint = await rt.webhooks.create(
        { url: `${hooks.origin}/hook`, eventTypes: ["pet.created"], description: "" },
        "test",
      );
      const { attempt } = await rt.webhooks.sendTest(endpoint.id, "test");
      expect(attempt?.status).toBe(204);
      const traceparent = hooks.received[0]?.headers.traceparent ?? "";
      const [, traceId, spanId, flags] = traceparent.split("-");
      expect(flags).toBe("01");
      const spans = await spansOf(String(traceId), (s) => s.some((x) => x.spanId === spanId));
      const sent = spans.find((s) => s.spanId === spanId) as OtlpSpan;
      expect(sent).toMatchObject({ name: "POST", kind: CLIENT });
      expect(sent.parentSpanId || undefined).toBeUndefined();
      expect(attribute(sent, "url.full")).toBe(`${hooks.origin}/hook`);
      expect(Number(attribute(sent, "http.response.status_code"))).toBe(204);
    } finally {
      await hooks.close();
    }
  });
});

describe("the production bundle without an OTLP endpoint", () => {
  /**
   * What `file` imports statically (`import … from "…"`, `import "…"`), transitively within dist/: the package
   * specifiers, and the bundle's own files with their source.
   */
  function staticGraph(
    file: string,
    graph = { specifiers: new Set<string>(), files: new Map<string, string>() },
  ) {
    const source = fs.readFileSync(file, "utf8");
    graph.files.set(file, source);
    for (const match of source.matchAll(
      /^\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|^\s*import\s*"([^"]+)"/gm,
    )) {
      const specifier = match[1] ?? match[2] ?? "";
      if (!specifier.startsWith(".")) graph.specifiers.add(specifier);
      else {
        const next = path.resolve(path.dirname(file), specifier);
        if (!graph.files.has(next)) staticGraph(next, graph);
      }
    }
    return graph;
  }

  it("imports no tracing SDK until it is configured: only @opentelemetry/api is a static import", async () => {
    await ensureBuild();
    const bundle = path.join(WEB_DIR, SERVER_BUNDLE);
    const { specifiers, files } = staticGraph(bundle);
    expect(
      [...specifiers].filter(
        (s) => s.startsWith("@opentelemetry/") || s.startsWith("@prisma/instrumentation"),
      ),
    ).toEqual(["@opentelemetry/api"]);
    // The SDK is reached all the same, through a dynamic import of the chunk that loads it.
    const lazyChunks = [...files].flatMap(([file, source]) =>
      [...source.matchAll(/import\("(\.\/[^"]+)"\)/g)].map((m) =>
        path.resolve(path.dirname(file), m[1] ?? ""),
      ),
    );
    expect(
      lazyChunks.some((chunk) =>
        fs.readFileSync(chunk, "utf8").includes('import("@opentelemetry/sdk-trace")'),
      ),
    ).toBe(true);
  });
});
