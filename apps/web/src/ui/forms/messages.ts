/**
 * The one catalogue of validation messages: a zod issue or a server `details` entry in plain words that say what
 * to enter, never schema wording (docs/contract.md section 4, "Forms never change what was typed").
 */
import type { z } from "zod";

const number = new Intl.NumberFormat("en-GB");
const fmt = (n: number | bigint) => number.format(n);

/** A bound at or past this is zod's safe-integer guard, not a rule of ours: not worth quoting. */
const SAFE_LIMIT = Number.MAX_SAFE_INTEGER;

type Issue = z.core.$ZodIssue;

/** First letter up, full stop at the end. */
function sentence(text: string): string {
  const trimmed = text.trim().replace(/[.\s]+$/, "");
  if (!trimmed) return "This value is not accepted.";
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
}

/** A domain message written as a predicate ("is already taken") becomes a sentence about the field. */
function domainSentence(text: string): string {
  return /^(is|must|cannot|should|has)\b/i.test(text.trim())
    ? sentence(`This ${text.trim()}`)
    : sentence(text);
}

/** Plain words for one zod issue. */
export function issueMessage(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type": {
      // zod names what it received only in its message (the input itself is not kept in the issue); the
      // contracts word a missing value "is required".
      const missing = /received (undefined|null)$/.test(issue.message) || issue.message === "is required";
      if (issue.expected === "number" || issue.expected === "int" || issue.expected === "bigint") {
        if (missing || /received NaN$/.test(issue.message)) return "Enter a number.";
        if (issue.expected === "int") return "Enter a whole number, without decimals.";
        return "Enter a number.";
      }
      if (missing) return "This field is required.";
      return "This value is not accepted.";
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string")
        return min <= 1 ? "This cannot be empty." : `Use at least ${fmt(min)} characters.`;
      if (issue.origin === "array") return min <= 1 ? "Choose at least one." : `Choose at least ${fmt(min)}.`;
      return issue.inclusive === false
        ? `Enter a number greater than ${fmt(min)}.`
        : `Enter a number of at least ${fmt(min)}.`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return `Use at most ${fmt(max)} characters.`;
      if (issue.origin === "array") return `Choose at most ${fmt(max)}.`;
      if (max >= SAFE_LIMIT) return "This number is too large.";
      return issue.inclusive === false
        ? `Enter a number smaller than ${fmt(max)}.`
        : `Enter a number no larger than ${fmt(max)}.`;
    }
    case "invalid_format":
      if (issue.format === "email") return "Enter an email address, like name@example.com.";
      if (issue.format === "uuid") return "This id is not valid.";
      if (issue.format === "datetime" || issue.format === "date") return "Enter a valid date.";
      return issue.message && !issue.message.startsWith("Invalid")
        ? domainSentence(issue.message)
        : "This value is not in the expected format.";
    case "invalid_value":
      return "Choose one of the options.";
    case "not_multiple_of":
      return `Enter a multiple of ${fmt(Number(issue.divisor))}.`;
    case "unrecognized_keys":
      return "This field is not expected here.";
    case "custom":
      return domainSentence(issue.message);
    default:
      return "This value is not accepted.";
  }
}

/** zod's own English, as the server may pass it on in `details`, mapped to the catalogue's words. */
const RAW_PATTERNS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [
    /^Too big: expected string to have <=?(\d+) characters?$/,
    (m) => `Use at most ${fmt(Number(m[1]))} characters.`,
  ],
  [
    /^Too small: expected string to have >=?(\d+) characters?$/,
    (m) => (Number(m[1]) <= 1 ? "This cannot be empty." : `Use at least ${fmt(Number(m[1]))} characters.`),
  ],
  [
    /^Too big: expected (?:number|int) to be <=?(\d+)$/,
    (m) =>
      Number(m[1]) >= SAFE_LIMIT
        ? "This number is too large."
        : `Enter a number no larger than ${fmt(Number(m[1]))}.`,
  ],
  [
    /^Too small: expected (?:number|int) to be >=?(-?\d+)$/,
    (m) => `Enter a number of at least ${fmt(Number(m[1]))}.`,
  ],
  [/^Invalid input: expected (?:number|int), received (?:undefined|null)$/, () => "Enter a number."],
  [/^Invalid input: expected int, received number$/, () => "Enter a whole number, without decimals."],
  [/^Invalid input: expected \w+, received undefined$/, () => "This field is required."],
  [/^Invalid (?:input|option)\b.*$/, () => "This value is not accepted."],
];

/** Plain words for a server `details[].message` (zod's English or a domain phrase such as "is already taken"). */
export function detailMessage(message: string): string {
  for (const [pattern, words] of RAW_PATTERNS) {
    const match = message.match(pattern);
    if (match) return words(match);
  }
  return domainSentence(message);
}

/**
 * Per-field messages of a failed parse, keyed by dotted path (`form` for the whole form), first issue of a
 * field wins except that a rule of ours is preferred to zod's safe-integer guard.
 */
export function fieldMessages(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  const ordered = [...error.issues].sort(
    (a, b) => Number("note" in a && a.note !== undefined) - Number("note" in b && b.note !== undefined),
  );
  for (const issue of ordered) {
    const path = issue.path.map(String).join(".") || "form";
    out[path] ??= issueMessage(issue);
  }
  return out;
}
