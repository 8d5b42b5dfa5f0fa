/**
 * The bench's peer: the service as a team would write it on Fastify 5 (docs/performance.md "How to reproduce"):
 * route schemas (Ajv validation, fast-json-stringify answers), @fastify/rate-limit with its Redis store for the
 * key's minute and day windows (or the client address's minute without a key), `pg`, and one pino log line per
 * request. It answers the benched requests with the bodies of the project and the reference, from the same keys
 * and animals; it keeps fewer promises than the project (windows from first use, no ban, no refund of a denied
 * request, one header family, no ETag, signed cursors, metrics or usage). Not part of the product.
 * Usage: `tsx bench/fastify-peer.ts` with PORT, DATABASE_URL, REDIS_URL and RATE_LIMIT_PREFIX in the environment.
 */
import { createHash } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import pg from "pg";
import { peerConfig } from "./peer-config.ts";

interface Key {
  id: string;
  perMinute: number;
  perDay: number;
}
declare module "fastify" {
  interface FastifyRequest {
    apiKey: Key | null;
  }
}

const settings = peerConfig();
const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 10 });
const redis = new Redis(settings.redisUrl);
const prefix = settings.prefix;
const ANONYMOUS_PER_MINUTE = settings.anonymousPerMinute;

const app = Fastify({ logger: { level: settings.logLevel }, disableRequestLogging: true });

const keys = new Map<string, { key: Key | null; until: number }>();
const BEARER = /^Bearer +(\S+)$/i;

async function lookUp(token: string): Promise<Key | null> {
  const hash = createHash("sha256").update(token).digest("hex");
  const cached = keys.get(hash);
  if (cached && cached.until > Date.now()) return cached.key;
  const { rows } = await pool.query(
    `SELECT k.id, COALESCE(k."perMinute", p."perMinute") AS "perMinute", COALESCE(k."perDay", p."perDay") AS "perDay"
     FROM "ApiKey" k JOIN "Plan" p ON p.name = k."planName"
     WHERE k.hash = $1 AND k."revokedAt" IS NULL`,
    [hash],
  );
  const key = (rows[0] as Key | undefined) ?? null;
  keys.set(hash, { key, until: Date.now() + 4_000 });
  return key;
}

app.decorateRequest("apiKey", null);
app.addHook("onResponse", async (request: FastifyRequest, reply: FastifyReply) => {
  request.log.info(
    {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    },
    "request",
  );
});

await app.register(rateLimit, { global: false, redis, nameSpace: `${prefix}:` });
const perMinute = app.rateLimit({
  timeWindow: 60_000,
  keyGenerator: (req) => (req.apiKey ? `min:${req.apiKey.id}` : `ip:${req.ip}`),
  max: (req) => req.apiKey?.perMinute ?? ANONYMOUS_PER_MINUTE,
});
const perDay = app.rateLimit({
  timeWindow: 86_400_000,
  keyGenerator: (req) => `day:${req.apiKey?.id}`,
  max: (req) => req.apiKey?.perDay ?? 0,
});

app.addHook("onRequest", async (request) => {
  const token = BEARER.exec(request.headers.authorization ?? "")?.[1];
  request.apiKey = token ? await lookUp(token) : null;
});
app.addHook("onRequest", perMinute);
app.addHook("onRequest", async (request, reply) => {
  if (!request.apiKey && request.url !== "/readyz")
    return reply.code(401).send({ code: "unauthorized", message: "An API key is required." });
});
app.addHook("onRequest", perDay);

const animal = {
  type: "object",
  required: ["id", "name", "categoryId"],
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    categoryId: { type: "integer" },
    status: { type: "string" },
  },
} as const;
type Row = { id: string; name: string; categoryId: string; status: string | null };
const toAnimal = (r: Row) => ({
  id: Number(r.id),
  name: r.name,
  categoryId: Number(r.categoryId),
  ...(r.status ? { status: r.status } : {}),
});

app.get("/readyz", async () => ({ status: "ready" }));

app.get<{ Querystring: { limit: number; after: number; status?: string } }>(
  "/v1/pets",
  {
    schema: {
      querystring: {
        type: "object",
        properties: {
          limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
          after: { type: "integer", minimum: 0, default: 0 },
          status: { type: "string", enum: ["available", "pending", "sold"] },
        },
      },
      response: { 200: { type: "array", items: animal } },
    },
  },
  async (request, reply) => {
    const { limit, after, status } = request.query;
    const { rows } = status
      ? await pool.query(
          `SELECT id, name, "categoryId", status FROM "Pet" WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`,
          [status, after, limit + 1],
        )
      : await pool.query(
          `SELECT id, name, "categoryId", status FROM "Pet" WHERE id > $1 ORDER BY id LIMIT $2`,
          [after, limit + 1],
        );
    const page = (rows as Row[]).slice(0, limit);
    if (rows.length > limit) reply.header("Link", `<?limit=${limit}&after=${page.at(-1)?.id}>; rel="next"`);
    return page.map(toAnimal);
  },
);

app.get<{ Params: { petId: number } }>(
  "/v1/pets/:petId",
  {
    schema: {
      params: { type: "object", properties: { petId: { type: "integer", minimum: 1 } } },
      response: { 200: animal },
    },
  },
  async (request, reply) => {
    const { rows } = await pool.query(`SELECT id, name, "categoryId", status FROM "Pet" WHERE id = $1`, [
      request.params.petId,
    ]);
    if (!rows[0]) return reply.code(404).send({ code: "not_found" });
    return toAnimal(rows[0] as Row);
  },
);

app.post<{ Body: { name: string; categoryId: number } }>(
  "/v1/pets",
  {
    schema: {
      body: {
        type: "object",
        required: ["name", "categoryId"],
        properties: {
          name: { type: "string", minLength: 1, maxLength: 100 },
          categoryId: { type: "integer" },
        },
      },
      response: { 201: animal },
    },
  },
  async (request, reply) => {
    const { rows } = await pool.query(
      `INSERT INTO "Pet" (name, "categoryId", "updatedAt") VALUES ($1, $2, now()) RETURNING id, name, "categoryId", status`,
      [request.body.name, request.body.categoryId],
    );
    return reply.code(201).send(toAnimal(rows[0] as Row));
  },
);

const port = settings.port;
await app.listen({ port, host: "127.0.0.1" });
process.stdout.write(`Listening on port ${port}\n`);
const stop = () =>
  void app.close().then(() => Promise.all([pool.end(), redis.quit()]).then(() => process.exit(0)));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
