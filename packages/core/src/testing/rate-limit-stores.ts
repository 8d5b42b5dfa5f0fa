/**
 * Test helpers for the rate limiter: a tiny server speaking the Upstash REST protocol (as @upstash/redis 1.39
 * uses it: POST a JSON command array to the base URL, or an array of them to `/pipeline`; replies `{result}` or
 * `{error}`, strings base64-encoded when the `Upstash-Encoding: base64` header is sent) that forwards every
 * command to a real Redis, and key clean-up.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import { sleep } from "./wait.ts";

export const REDIS_URL = "redis://127.0.0.1:6379";

/** Starts the REST bridge on a free port. Returns its URL, the token it expects, and `close()`. */
export async function startUpstashBridge(): Promise<{ url: string; token: string; close(): Promise<void> }> {
  const redis = new Redis(REDIS_URL);
  const token = "test-token";
  const encode = (v: unknown, b64: boolean): unknown =>
    typeof v === "string" && b64
      ? Buffer.from(v).toString("base64")
      : Array.isArray(v)
        ? v.map((x) => encode(x, b64))
        : v;
  const run = async ([cmd, ...args]: string[], b64: boolean) => {
    try {
      return { result: encode(await redis.call(String(cmd), ...args.map(String)), b64) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: "Unauthorized" });
    const b64 = req.headers["upstash-encoding"] === "base64";
    const parsed = JSON.parse(body) as string[] | string[][];
    if (req.url === "/pipeline")
      return reply(200, await Promise.all((parsed as string[][]).map((c) => run(c, b64))));
    const r = await run(parsed as string[], b64);
    return reply("error" in r ? 400 : 200, r);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await redis.quit();
    },
  };
}

/** Deletes every key starting with `prefix` from the local Redis. */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await redis.quit();
  }
}

/** Waits, if needed, so that at least `marginMs` remain before the current `windowMs` window ends. */
export async function clearOfBoundary(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await sleep(left + 20);
}
