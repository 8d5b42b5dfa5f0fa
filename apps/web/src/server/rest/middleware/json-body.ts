/**
 * Request body gates for JSON operations (docs/contract.md section 1, createPet and the store section), before
 * schema validation: 415 unless the media type is one the operation takes (application/json; updatePet also
 * application/merge-patch+json), 413 over 16 KiB, 400 `invalid_request` unless the body is UTF-8 and a JSON
 * object. So validation only ever sees an object. completeOrder and cancelOrder take no body, or `{}`.
 */
import { z } from "@hono/zod-openapi";
import { MAX_BODY_BYTES, problems, validationProblem } from "@petstore/contracts";
import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";
import { respondProblem } from "../respond.ts";

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;
const MERGE_PATCH_MEDIA_TYPE = /^application\/(merge-patch\+)?json\s*(;.*)?$/i;

/**
 * JSON text is UTF-8 (RFC 8259 section 8.1). A lenient decoder would turn stray bytes into U+FFFD and store
 * a name the client never sent, so the body is decoded strictly and bytes that are not UTF-8 are refused.
 */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body's bytes, or undefined when they are more than `MAX_BODY_BYTES`. A declared length is checked before
 * anything is read (Node's parser delivers exactly that many bytes); a chunked body is counted while it is read.
 * The declared length is read from the header, not through `request.body`: touching that turns
 * @hono/node-server's lightweight request into a web stream, which costs createPet about 8% of its CPU.
 */
async function boundedBody(c: Context<RestEnv>): Promise<Uint8Array | undefined> {
  const length = c.req.header("content-length");
  if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
    return Number.parseInt(length, 10) > MAX_BODY_BYTES
      ? undefined
      : new Uint8Array(await c.req.arrayBuffer());
  }
  const reader = c.req.raw.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const chunk = await reader?.read();
    if (!chunk || chunk.done) break;
    size += chunk.value.length;
    if (size > MAX_BODY_BYTES) {
      await reader?.cancel();
      return undefined;
    }
    chunks.push(chunk.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * The gate of a body of `mediaType` (its 415 names `accepted`); with `optional`, a request without a body passes
 * as `{}` (an empty body, whatever its media type).
 */
const objectBody = (mediaType: RegExp, accepted: string, optional = false) =>
  createMiddleware<RestEnv>(async (c, next) => {
    if (optional && c.req.header("transfer-encoding") === undefined) {
      const declared = c.req.header("content-length");
      if (declared === undefined || declared === "0") {
        (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve("{}");
        return next();
      }
    }
    if (!mediaType.test(c.req.header("content-type") ?? "")) {
      return respondProblem(problems.unsupportedMediaType(accepted), c);
    }
    return readObject(c, next, optional);
  });

/** The one body an operation without input takes: `{}`. */
const EMPTY_OBJECT = z.strictObject({});

async function readObject(c: Context<RestEnv>, next: Next, optional: boolean) {
  const bytes = await boundedBody(c);
  if (!bytes) return respondProblem(problems.payloadTooLarge(), c);
  if (optional && bytes.length === 0) {
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve("{}");
    return next();
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return respondProblem(problems.malformedRequest("The request body is not valid UTF-8."), c);
  }
  // The validator reads the body next (`c.req.json()`, which parses hono's cached text): hand it this text
  // rather than have it read and decode the body a second time. hono caches promises there.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return respondProblem(problems.malformedRequest("The request body is not valid JSON."), c);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return respondProblem(problems.malformedRequest("The request body must be a JSON object."), c);
  }
  if (optional) {
    const checked = EMPTY_OBJECT.safeParse(parsed);
    if (!checked.success) return respondProblem(validationProblem(checked.error), c);
  }
  await next();
}

/** createPet's and createOrder's gate: an application/json object. */
export const jsonObjectBody = objectBody(JSON_MEDIA_TYPE, "application/json");

/** updatePet's gate: a JSON merge patch (RFC 7396), as application/merge-patch+json or application/json. */
export const mergePatchBody = objectBody(
  MERGE_PATCH_MEDIA_TYPE,
  "application/merge-patch+json or application/json",
);

/** completeOrder's and cancelOrder's gate: no body, or an application/json object (which must be `{}`). */
export const optionalObjectBody = objectBody(JSON_MEDIA_TYPE, "application/json", true);
