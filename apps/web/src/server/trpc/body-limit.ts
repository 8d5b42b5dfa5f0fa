/**
 * Request-body cap for the tRPC endpoint: a body over `maxBytes` (by its declared Content-Length, or, without
 * one, once the bytes read pass it) is refused, so no client can make the server buffer or parse more than
 * `maxBytes`. Before the refusal goes out, the rest of the body is read and dropped for at most `DRAIN_MS` and
 * `DRAIN_BYTES`: a client still sending would otherwise have the connection closed under it and see a reset
 * instead of the 413 (the "lingering close" of RFC 9112 section 9.6, as nginx does it).
 */

/** How long a refused body is read and dropped so that its sender gets the answer, ms. */
export const DRAIN_MS = 2_000;
/** How much of a refused body is read and dropped at most, bytes. */
export const DRAIN_BYTES = 32 * 1024 * 1024;

/**
 * The request with its body read into memory when it fits `maxBytes`, else `undefined` (too large; the rest
 * of the body has been drained as the module comment says). Requests without a body are returned as they are.
 */
export async function withBoundedBody(req: Request, maxBytes: number): Promise<Request | undefined> {
  const declared = req.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= maxBytes)) {
    if (req.body) await drain(req.body.getReader());
    return undefined;
  }
  if (!req.body) return req;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await drain(reader);
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

/**
 * Reads and drops what is left of `reader` for up to `DRAIN_MS` and `DRAIN_BYTES`, then cancels it (a timer
 * cancels it too, so a sender that stalls cannot hold the request open). Never throws.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), DRAIN_MS);
  let dropped = 0;
  try {
    while (dropped <= DRAIN_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The sender went away: nothing left to drain.
  } finally {
    clearTimeout(timer);
  }
}
