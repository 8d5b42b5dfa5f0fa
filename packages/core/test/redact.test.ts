/**
 * Redaction of request targets before the request log stores them (usage/redact.ts): every secret parameter name,
 * in any case and with `-` for `_`, and values shaped like our API keys anywhere in the path or query; the rest of
 * the target stays byte for byte.
 */
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../src/api-keys/format.ts";
import { REDACTED, redactTarget, SECRET_PARAMETERS } from "../src/usage/redact.ts";

const live = generateApiKey("production");
const test = generateApiKey("staging");

describe("redactTarget", () => {
  it.each([...SECRET_PARAMETERS])("redacts the value of %s, in any case", (name) => {
    expect(redactTarget(`/v1/pets?limit=2&${name}=s3cr3t`)).toBe(`/v1/pets?limit=2&${name}=${REDACTED}`);
    const upper = name.toUpperCase().replaceAll("_", "-");
    expect(redactTarget(`/v1/pets?${upper}=s%33cr3t+x&limit=2`)).toBe(
      `/v1/pets?${upper}=${REDACTED}&limit=2`,
    );
  });

  it.each([
    ["a key as a value of any name", `/v1/pets?q=${live}`, `/v1/pets?q=${REDACTED}`],
    ["a key inside a value", `/v1/pets?q=Bearer%20${test}&x=1`, `/v1/pets?q=${REDACTED}&x=1`],
    ["a key as a name", `/v1/pets?${live}&limit=1`, `/v1/pets?${REDACTED}&limit=1`],
    ["a key as a path segment", `/v1/pets/${live}`, `/v1/pets/${REDACTED}`],
    ["a key in a segment, escaped", `/v1/pets/x${test.replace("_", "%5F")}`, `/v1/pets/${REDACTED}`],
    ["a key with a wrong checksum", `/v1/pets?q=pet_live_${"A".repeat(38)}`, `/v1/pets?q=${REDACTED}`],
    [
      "every secret of one query",
      `/v1/me?api_key=${live}&access_token=${test}&token=s3cr3t`,
      `/v1/me?api_key=${REDACTED}&access_token=${REDACTED}&token=${REDACTED}`,
    ],
  ])("redacts %s", (_, target, stored) => {
    expect(redactTarget(target)).toBe(stored);
  });

  it.each([
    "/v1/pets",
    "/v1/pets?limit=2&status=available&name=%22a%2Cb%22&q=\\{x}",
    "/v1/pets?keys=1&tokenizer=x&monkey=2&pet_live_=short",
    "/v1/pets?token",
    "/v1/pets/%E0%A4%A",
  ])("keeps %s as sent", (target) => {
    expect(redactTarget(target)).toBe(target);
  });
});
