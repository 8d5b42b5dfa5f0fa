/**
 * Request-body cap for the tRPC endpoint: a declared Content-Length over the limit is refused without
 * reading; a body without one (chunked) is read until it passes the limit and then refused, so no client
 * can make the server buffer or parse more than `maxBytes`.
 */

/**
 * The request with its body read into memory when it fits `maxBytes`, else `undefined` (too large).
 * Requests without a body are returned as they are.
 */
export async function withBoundedBody(req: Request, maxBytes: number): Promise<Request | undefined> {
  const declared = req.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= maxBytes)) return undefined;
  if (!req.body) return req;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: Buffer.concat(chunks),
    signal: req.signal,
  });
}
