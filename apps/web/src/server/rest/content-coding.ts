/**
 * Compression of /v1 answers (docs/contract.md section 1, "Conditional requests and compression"): a body over
 * 1 KiB goes out as gzip or br when the request's Accept-Encoding accepts one (negotiated by `negotiator`:
 * highest q first, then the client's own order), with `Content-Encoding` and `Vary: Accept-Encoding`; a
 * strong ETag becomes weak, since the encoded bytes are not the identity bytes it names (RFC 9110 section
 * 8.8.1; as nginx and Hono's compress do).
 *
 * Compression is Node's zlib, synchronously, on the body the app already holds as a string, and the result is
 * a Buffer: @hono/node-server's lightweight Response writes both as they are. Hono's `compress` middleware pipes
 * `response.body` through a CompressionStream instead, which turns every answer, compressed or not, into a web
 * stream (docs/performance.md, "Where the time goes"), and its 1 KiB threshold reads a Content-Length the
 * app never sets. A body here is at most a page of 100 animals or a validation error of a 16 KiB request, so
 * compressing it synchronously costs less than handing it to the thread pool and back. Constant bodies (the
 * OpenAPI document) are compressed once, at the best quality, by `precompressed`.
 */
import zlib from "node:zlib";
import type { Context } from "hono";
import Negotiator from "negotiator";
import type { RestEnv } from "./env.ts";

/** Bodies of at most this many bytes go out as they are (compression would save too little). */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

export type ContentCoding = "gzip" | "br";
/** Compressed bytes (zlib's Buffers, typed as a Response body accepts them). */
type Encoded = Uint8Array<ArrayBuffer>;
const OFFERED = ["gzip", "br", "identity"];

/**
 * Per-request settings: gzip's default level with an 8 KiB window, brotli's quality 5 (of 11) with a 256 KiB
 * window. The bodies are small, so smaller windows compress them as well as the defaults and cost less to set up.
 */
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 6, windowBits: 13 };
const brotliOptions = (body: string): zlib.BrotliOptions => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_LGWIN]: 18,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
  },
});

/** Bodies compressed once (`precompressed`), by their text. */
const constant = new Map<string, Record<ContentCoding, Encoded>>();

/** Whether `body` is over the threshold, without measuring its UTF-8 length when its UTF-16 length decides. */
function overThreshold(body: string): boolean {
  if (body.length > COMPRESSION_THRESHOLD_BYTES) return true;
  // A UTF-16 code unit is at most 3 UTF-8 bytes.
  return (
    body.length * 3 > COMPRESSION_THRESHOLD_BYTES && Buffer.byteLength(body) > COMPRESSION_THRESHOLD_BYTES
  );
}

/** The coding the request accepts best for a body of this size, if any (HEAD: none, there is no body to send). */
export function negotiatedCoding(c: Context<RestEnv>, body: string): ContentCoding | undefined {
  if (c.req.method === "HEAD" || !overThreshold(body)) return undefined;
  const accepted = c.req.header("accept-encoding");
  if (!accepted) return undefined;
  const coding = new Negotiator({ headers: { "accept-encoding": accepted } }).encoding(OFFERED);
  return coding === "gzip" || coding === "br" ? coding : undefined;
}

/**
 * Adds what the coding decision means to `headers` (the answer's, a plain object): `Vary: Accept-Encoding` for
 * any body over the threshold (another client may get another coding), and with `coding`, `Content-Encoding` and
 * a weak ETag. Also used for a 304, which carries the headers its 200 would have had (RFC 9110 section 15.4.5).
 */
export function describeCoding(
  headers: Record<string, string>,
  body: string,
  coding: ContentCoding | undefined,
): void {
  if (!overThreshold(body)) return;
  const vary = headers.Vary;
  headers.Vary = vary ? `${vary}, Accept-Encoding` : "Accept-Encoding";
  if (!coding) return;
  headers["Content-Encoding"] = coding;
  const etag = headers.ETag;
  if (etag && !etag.startsWith("W/")) headers.ETag = `W/${etag}`;
}

/**
 * The body to send for `body` in reply to `c`'s request: `body` itself, or its gzip or br bytes when the request
 * accepts one and the body is over 1 KiB. `headers` (the answer's, a plain object) get `Content-Encoding`, `Vary`
 * and a weak ETag as `describeCoding` says.
 */
export function encodeBody(
  c: Context<RestEnv>,
  body: string,
  headers: Record<string, string>,
): string | Encoded {
  const coding = negotiatedCoding(c, body);
  describeCoding(headers, body, coding);
  if (!coding) return body;
  const ready = constant.get(body);
  if (ready) return ready[coding];
  return coding === "gzip"
    ? zlib.gzipSync(body, GZIP_OPTIONS)
    : zlib.brotliCompressSync(body, brotliOptions(body));
}

/**
 * Registers `text`, a body the app sends unchanged to every request (the OpenAPI document), compressed once at
 * the best quality, so that `encodeBody` only picks the bytes. @returns `text`.
 */
export function precompressed(text: string): string {
  if (!constant.has(text)) {
    constant.set(text, {
      gzip: zlib.gzipSync(text, { level: zlib.constants.Z_BEST_COMPRESSION }),
      br: zlib.brotliCompressSync(text, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text),
        },
      }),
    });
  }
  return text;
}
