/**
 * The few Redis commands the bench needs, over raw RESP (no client library in the measuring process): SCAN + DEL
 * of the bench's key prefix.
 */
import net from "node:net";
import { options } from "./options.ts";

const REDIS_URL = options.redisUrl;

const encode = (args: string[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;

/** Sends one command and returns the reply (simple, bulk or integer) as text. */
async function redisCommand(...args: string[]): Promise<string> {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1");
  return new Promise<string>((resolve, reject) => {
    let data = Buffer.alloc(0);
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString();
      const eol = text.indexOf("\r\n");
      if (eol < 0) return;
      if (text[0] === "$") {
        const length = Number(text.slice(1, eol));
        const body = data.subarray(Buffer.byteLength(text.slice(0, eol + 2)));
        if (body.length < length + 2) return;
        resolve(body.subarray(0, length).toString());
      } else if (text[0] === "-") reject(new Error(text.slice(1, eol)));
      else resolve(text.slice(1, eol));
      socket.end();
    });
    socket.write(encode(args));
  });
}

/** SCAN with MATCH, parsing the two-element array reply. */
async function redisScan(cursor: string, match: string): Promise<{ cursor: string; keys: string[] }> {
  const { hostname, port } = new URL(REDIS_URL);
  const socket = net.connect(Number(port || 6379), hostname || "127.0.0.1");
  socket.write(encode(["SCAN", cursor, "MATCH", match, "COUNT", "1000"]));
  let text = "";
  for await (const chunk of socket) {
    text += chunk.toString();
    const lines = text.split("\r\n");
    // *2, $n, cursor, *k, then k pairs of $n / key.
    const count = Number(lines[3]?.slice(1));
    if (lines.length >= 4 && Number.isFinite(count) && lines.length >= 5 + 2 * count) {
      socket.end();
      const keys = Array.from({ length: count }, (_, i) => lines[5 + 2 * i] as string);
      return { cursor: lines[2] as string, keys };
    }
  }
  throw new Error("SCAN: connection closed early");
}

/** Deletes every key starting with `prefix` (SCAN + DEL). */
export async function deletePrefix(prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const reply = await redisScan(cursor, `${prefix}*`);
    cursor = reply.cursor;
    if (reply.keys.length > 0) await redisCommand("DEL", ...reply.keys);
  } while (cursor !== "0");
}
