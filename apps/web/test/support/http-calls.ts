/**
 * Calls over HTTP to a running server, whatever runs it (in this process on a socket, or a process of its own):
 * the dashboard's tRPC API as its browser client calls it (optionally from a client address, sent as
 * X-Forwarded-For for servers run with TRUST_PROXY), its sign-in, and /v1 with a key.
 */
import { PASSWORD } from "./common.ts";

/** What the calls need of a server: where it listens and, for `rest`, its key. */
export interface Target {
  baseUrl: string;
  key: string;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

export interface CallOptions {
  /** Client address (sent as X-Forwarded-For). */
  ip?: string;
  /** Session token for the cookie. */
  token?: string;
  headers?: Record<string, string>;
}

function headersFor(options: CallOptions): Record<string, string> {
  return {
    ...(options.ip ? { "X-Forwarded-For": options.ip } : {}),
    ...(options.token ? { Cookie: sessionCookie(options.token) } : {}),
    ...options.headers,
  };
}

/** One tRPC call: queries as GET, mutations as POST. */
export async function trpc(
  app: Pick<Target, "baseUrl">,
  kind: "query" | "mutation",
  path: string,
  input: unknown,
  options: CallOptions = {},
): Promise<Reply> {
  const headers = headersFor(options);
  if (kind === "query") {
    const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return reply(await fetch(`${app.baseUrl}/api/trpc/${path}${query}`, { headers }));
  }
  return reply(
    await fetch(`${app.baseUrl}/api/trpc/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(input),
    }),
  );
}

/** A batch of mutations in one POST (`?batch=1`), as httpBatchLink sends it. */
export async function trpcBatch(
  app: Pick<Target, "baseUrl">,
  calls: { path: string; input: unknown }[],
  options: CallOptions = {},
): Promise<Reply> {
  const body = Object.fromEntries(calls.map((c, i) => [String(i), c.input]));
  return reply(
    await fetch(`${app.baseUrl}/api/trpc/${calls.map((c) => c.path).join(",")}?batch=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headersFor(options) },
      body: JSON.stringify(body),
    }),
  );
}

/** The tRPC error code of a single (non-batch) reply, or undefined for a success. */
export function trpcCode(r: Reply): string | undefined {
  return (r.body as { error?: { data?: { code?: string } } } | undefined)?.error?.data?.code;
}

/** Per-call outcome codes of a batch reply: "OK" or the tRPC error code. */
export function batchCodes(r: Reply): string[] {
  if (!Array.isArray(r.body)) return [];
  return (r.body as { error?: { data?: { code?: string } } }[]).map((e) => e.error?.data?.code ?? "OK");
}

/** Signs `email` in over HTTP (PASSWORD) and returns the session token. @throws when the sign-in fails. */
export async function signIn(
  app: Pick<Target, "baseUrl">,
  email: string,
  ip = "198.51.100.200",
): Promise<string> {
  const r = await trpc(app, "mutation", "auth.signIn", { email, password: PASSWORD }, { ip });
  const token = /petstore_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "")?.[1];
  if (r.status !== 200 || !token) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
  return token;
}

/** The Cookie header of a session `token`. */
export const sessionCookie = (token: string): string => `petstore_session=${token}`;

/** Sends a REST request with the app's key. */
export async function rest(app: Target, path: string, init: RequestInit = {}): Promise<Reply> {
  return reply(
    await fetch(`${app.baseUrl}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${app.key}`,
        ...(init.body ? { "Content-Type": "application/json" } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    }),
  );
}
