/**
 * Request body gate for JSON operations (docs/contract.md section 1, createPet): 415 unless the media type is
 * application/json, 413 over 16 KiB (hono's bodyLimit), 400 `invalid_request` unless the body is a JSON
 * object. Runs before schema validation, so validation only ever sees an object.
 */
import { AppError } from "@petstore/contracts";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import { createMiddleware } from "hono/factory";
import type { RestEnv } from "../env.ts";

export const MAX_BODY_BYTES = 16 * 1024;

const JSON_MEDIA_TYPE = /^application\/json\s*(;.*)?$/i;

const requireJsonMediaType = createMiddleware<RestEnv>(async (c, next) => {
  if (!JSON_MEDIA_TYPE.test(c.req.header("content-type") ?? "")) {
    throw new AppError("unsupported_media_type", "Send the request body as application/json.");
  }
  await next();
});

const tooLarge = () =>
  new AppError("payload_too_large", `The request body must be at most ${MAX_BODY_BYTES} bytes.`);

const streamedBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw tooLarge();
  },
});

/**
 * With a Content-Length (and no Transfer-Encoding) the length is known before reading: Node's parser delivers
 * exactly that many bytes, so the check is the header alone. Only a chunked body goes through hono's
 * bodyLimit, which must touch `request.body`: that turns @hono/node-server's lightweight request into a web
 * stream and made createPet read its body through it (8% of its CPU, issue 7).
 */
const limitBody = createMiddleware<RestEnv>(async (c, next) => {
  const length = c.req.header("content-length");
  if (length === undefined || c.req.header("transfer-encoding") !== undefined)
    return streamedBodyLimit(c, next);
  if (Number.parseInt(length, 10) > MAX_BODY_BYTES) throw tooLarge();
  await next();
});

const requireJsonObject = createMiddleware<RestEnv>(async (c, next) => {
  const text = await c.req.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("invalid_request", "The request body is not valid JSON.");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new AppError("invalid_request", "The request body must be a JSON object.");
  }
  await next();
});

export const jsonObjectBody = every(requireJsonMediaType, limitBody, requireJsonObject);
