/**
 * The bench's reference: a bare `node:http` + `pg` + `ioredis` server doing the work of the benched requests and
 * nothing else (docs/interface.md, `/v1/pets`; createOrder and completeOrder, docs/contract.md section 1): bearer
 * key -> SHA-256 -> key look-up cached in process for 4 s, per-minute and per-day fixed windows (or the per-IP
 * minute window without a key) in one Redis Lua script, one statement (listPets: filtered by status, after an id;
 * an order's placement and completion: the statements of packages/core/src/orders/statements.ts, their webhook
 * events included), a JSON body. It is the ceiling `npm run bench` compares the project with
 * (docs/performance.md). Not part of the product.
 * Usage: `tsx bench/reference.ts` with PORT, DATABASE_URL, REDIS_URL and RATE_LIMIT_PREFIX in the environment.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { Redis } from "ioredis";
import pg from "pg";
import { peerConfig } from "./peer-config.ts";

const settings = peerConfig();
const pool = new pg.Pool({ connectionString: settings.databaseUrl, max: 10 });
const redis = new Redis(settings.redisUrl);
const prefix = settings.prefix;
const ANONYMOUS_PER_MINUTE = settings.anonymousPerMinute;

// KEYS: counters; ARGV: n, then n (limit, ttl ms) pairs. Increments each; denies (and refunds) when any is over.
redis.defineCommand("windows", {
  numberOfKeys: 2,
  lua: `local n = tonumber(ARGV[1]); local counts = {}
for i = 1, n do
  counts[i] = redis.call('INCR', KEYS[i])
  if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[2 * i + 1]) end
end
for i = 1, n do
  if counts[i] > tonumber(ARGV[2 * i]) then
    for j = 1, n do redis.call('DECR', KEYS[j]) end
    return {0, counts[1]}
  end
end
return {1, counts[1]}`,
});
type WindowsCommand = (k1: string, k2: string, ...args: (string | number)[]) => Promise<[number, number]>;
const windows = (redis as unknown as { windows: WindowsCommand }).windows.bind(redis);

interface Key {
  id: string;
  perMinute: number;
  perDay: number;
}
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

/** Admits (true) or denies one request of `key`, or of the anonymous client `ip`. */
async function admit(key: Key | null, ip: string): Promise<boolean> {
  const now = Date.now();
  const minute = Math.floor(now / 60_000);
  if (!key) {
    const k = `${prefix}:ip:${ip}:${minute}`;
    const [ok] = await windows(k, k, 1, ANONYMOUS_PER_MINUTE, 60_000);
    return ok === 1;
  }
  const [ok] = await windows(
    `${prefix}:min:${key.id}:${minute}`,
    `${prefix}:day:${key.id}:${Math.floor(now / 86_400_000)}`,
    2,
    key.perMinute,
    60_000,
    key.perDay,
    86_400_000,
  );
  return ok === 1;
}

type Row = { id: string; name: string; categoryId: string; status: string | null };
const animal = (r: Row) => ({
  id: Number(r.id),
  name: r.name,
  categoryId: Number(r.categoryId),
  ...(r.status ? { status: r.status } : {}),
});

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

/** A timestamp as JavaScript's `toISOString` writes it, in SQL. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const ORDER_COLUMNS = (o: string) =>
  `${o}."id", ${o}."petId", ${o}."status"::text AS "status", ${iso(`${o}."createdAt"`)} AS "createdAt",
   ${iso(`${o}."holdUntil"`)} AS "holdUntil", CASE WHEN ${o}."closedAt" IS NULL THEN NULL ELSE ${iso(`${o}."closedAt"`)} END AS "closedAt"`;
const ORDER_JSON = (o: string) =>
  `format('{"id":%s,"petId":%s,"status":%s,"createdAt":%s,"holdUntil":%s,"closedAt":%s}', ${o}."id", ${o}."petId",
   to_json(${o}."status"::text), to_json(${iso(`${o}."createdAt"`)}), to_json(${iso(`${o}."holdUntil"`)}),
   CASE WHEN ${o}."closedAt" IS NULL THEN 'null' ELSE to_json(${iso(`${o}."closedAt"`)})::text END)`;
const ANIMAL_CHANGED_JSON = (r: string, previous: string) =>
  `left(format('{"id":%s,"name":%s,"categoryId":%s%s}', ${r}."id", to_json(${r}."name"::text), ${r}."categoryId",
   CASE WHEN ${r}."status" IS NULL THEN '' ELSE format(',"status":%s', to_json(${r}."status"::text)) END), -1)
   || ',"previous":{"status":"${previous}"}}'`;
/** The outbox's two CTEs (webhooks/outbox.ts) after an `events` CTE of `type`, `data`, `accountId`. */
const OUTBOX = `webhook_events AS (
    INSERT INTO "WebhookEvent" ("type", "data", "accountId")
    SELECT s."type", s."data", s."accountId" FROM events s
    WHERE EXISTS (SELECT 1 FROM "WebhookEndpoint" ep WHERE s."type" = ANY (ep."eventTypes")
      AND (s."type" NOT LIKE 'order.%' OR ep."accountId" IS NULL OR ep."accountId" = s."accountId"))
    RETURNING "id", "type", "accountId"
  ), webhook_queued AS (
    INSERT INTO "WebhookDelivery" ("eventId", "endpointId")
    SELECT e."id", ep."id" FROM webhook_events e
    JOIN "WebhookEndpoint" ep ON ep."enabled" AND e."type" = ANY (ep."eventTypes")
      AND (e."type" NOT LIKE 'order.%' OR ep."accountId" IS NULL OR ep."accountId" = e."accountId")
    RETURNING 1
  )`;
const PLACE_ORDER = `WITH held AS (
    UPDATE "Pet" SET "status" = 'pending', "updatedAt" = now() WHERE "id" = $1 AND "status" = 'available'
    RETURNING "id", "name", "categoryId", "status"
  ), placed AS (
    INSERT INTO "Order" ("petId", "accountId", "apiKeyId", "status", "createdAt", "holdUntil")
    SELECT "id", NULL, $2::uuid, 'placed', now(), now() + interval '30 minutes' FROM held RETURNING *
  ), events AS (
    SELECT 'order.placed' AS "type", ${ORDER_JSON("placed")} AS "data", placed."accountId" FROM placed
    UNION ALL SELECT 'pet.updated', ${ANIMAL_CHANGED_JSON("held", "available")}, NULL::uuid FROM held
  ), ${OUTBOX}
  SELECT ${ORDER_COLUMNS("placed")}, (SELECT count(*) FROM webhook_queued)::int AS "queued" FROM placed`;
const COMPLETE_ORDER = `WITH closed AS (
    UPDATE "Order" o SET "status" = 'completed', "closedAt" = now()
    WHERE o."id" = $1 AND o."apiKeyId" = $2::uuid AND o."accountId" IS NULL AND o."status" = 'placed' AND o."holdUntil" > now()
    RETURNING o.*
  ), moved AS (
    UPDATE "Pet" p SET "status" = 'sold', "updatedAt" = now() FROM closed WHERE p."id" = closed."petId" AND p."status" = 'pending'
    RETURNING p."id", p."name", p."categoryId", p."status"
  ), events AS (
    SELECT 'order.completed'::text AS "type", ${ORDER_JSON("closed")} AS "data", closed."accountId" FROM closed
    UNION ALL SELECT 'pet.updated', ${ANIMAL_CHANGED_JSON("moved", "pending")}, NULL::uuid FROM moved
  ), ${OUTBOX}
  SELECT ${ORDER_COLUMNS("closed")}, (SELECT count(*) FROM webhook_queued)::int AS "queued" FROM closed`;
type OrderRow = { id: string; petId: string; queued: number } & Record<string, unknown>;
const order = ({ queued: _queued, ...r }: OrderRow) => ({ ...r, id: Number(r.id), petId: Number(r.petId) });

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://reference");
  if (url.pathname === "/readyz") return send(res, 200, { status: "ready" });
  const token = BEARER.exec(req.headers.authorization ?? "")?.[1];
  const key = token ? await lookUp(token) : null;
  if (!(await admit(key, req.socket.remoteAddress ?? "unknown")))
    return send(res, 429, { code: "rate_limited" });
  if (!key) return send(res, 401, { code: "unauthorized", message: "An API key is required." });
  const id = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)?.[1];
  if (req.method === "GET" && url.pathname === "/v1/pets") {
    const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 20));
    const after = Number(url.searchParams.get("after") ?? 0);
    const status = url.searchParams.get("status");
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
    const next = rows.length > limit ? `?limit=${limit}&after=${page.at(-1)?.id}` : undefined;
    return send(res, 200, page.map(animal), next ? { Link: `<${next}>; rel="next"` } : {});
  }
  if (req.method === "GET" && id) {
    const { rows } = await pool.query(`SELECT id, name, "categoryId", status FROM "Pet" WHERE id = $1`, [id]);
    return rows[0] ? send(res, 200, animal(rows[0] as Row)) : send(res, 404, { code: "not_found" });
  }
  if (req.method === "POST" && url.pathname === "/v1/pets") {
    const input = JSON.parse(await readBody(req)) as { name: string; categoryId: number };
    const { rows } = await pool.query(
      `INSERT INTO "Pet" (name, "categoryId", "updatedAt") VALUES ($1, $2, now()) RETURNING id, name, "categoryId", status`,
      [input.name, input.categoryId],
    );
    return send(res, 201, animal(rows[0] as Row));
  }
  if (req.method === "POST" && url.pathname === "/v1/store/orders") {
    const input = JSON.parse(await readBody(req)) as { petId: number };
    const { rows } = await pool.query(PLACE_ORDER, [input.petId, key.id]);
    return rows[0]
      ? send(res, 201, order(rows[0] as OrderRow), {
          Location: `/v1/store/orders/${(rows[0] as OrderRow).id}`,
        })
      : send(res, 409, { code: "conflict" });
  }
  const completed = /^\/v1\/store\/orders\/(\d+)\/complete$/.exec(url.pathname)?.[1];
  if (req.method === "POST" && completed) {
    const { rows } = await pool.query(COMPLETE_ORDER, [completed, key.id]);
    return rows[0] ? send(res, 200, order(rows[0] as OrderRow)) : send(res, 409, { code: "conflict" });
  }
  send(res, 404, { code: "not_found" });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch(() => send(res, 500, { code: "internal_error" }));
});
const port = settings.port;
server.listen(port, () => process.stdout.write(`Listening on port ${port}\n`));
const stop = () =>
  server.close(() => void Promise.all([pool.end(), redis.quit()]).then(() => process.exit(0)));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
