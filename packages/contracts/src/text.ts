/**
 * The one rule for text a person types as a name or a search term (animal, category, API key and user
 * names, dashboard searches and audit filters), so that the REST API, the dashboard and the CLI accept and
 * refuse the same strings with the same words. A value is NFC-normalised (Unicode UAX #15) and trimmed, then
 * refused when it
 * - is not well-formed UTF-16 (a lone surrogate cannot be stored as UTF-8),
 * - holds a C0 or C1 control character, NUL included (PostgreSQL cannot store NUL in text),
 * - holds a bidirectional embedding, override or isolate character (U+202A..U+202E, U+2066..U+2069; Unicode
 *   UAX #9), which can make a name display as something else,
 * - holds a line or paragraph separator (U+2028, U+2029): a line break that many parsers (JavaScript's `.`,
 *   spreadsheets) do not count as one, so a one-line name could break lines where it is shown or exported,
 * - holds a tag character (U+E0000..U+E007F, the Tags block): invisible, so it can carry hidden text,
 * - has no visible character: a letter, digit, punctuation mark or symbol that is not default-ignorable
 *   (so zero-width spaces or a Hangul filler alone are no name),
 * - is longer than its maximum (UTF-16 code units, after normalisation and trimming).
 * Pure: no I/O.
 */
import { typeMessage, z } from "./zod.ts";

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** General category Cc: exactly the C0 (U+0000..U+001F), DEL and C1 (U+007F..U+009F) controls. */
const CONTROL = /\p{Cc}/u;
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
const LINE_SEPARATOR = /[\u2028\u2029]/u;
const TAG = /[\u{E0000}-\u{E007F}]/u;
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/** True when `text` has at least one visible character (see the module comment). */
export function hasVisibleCharacter(text: string): boolean {
  return VISIBLE.test(text.replace(DEFAULT_IGNORABLE, ""));
}

export interface TextRuleOptions {
  /** Longest accepted value, in UTF-16 code units after normalisation and trimming. */
  max: number;
  /** Accept "" (after trimming) as "no value", e.g. an empty search box. Default false. */
  allowEmpty?: boolean;
}

/**
 * A zod string schema applying the text rule; its output is the normalised, trimmed value.
 * Failures are zod issues with these messages: "is required", "must be a string", "must be valid Unicode text",
 * "must not contain control characters", "must not contain bidirectional control characters",
 * "must not contain line or paragraph separators", "must not contain tag characters",
 * "must not be empty", "must contain a visible character", "must be at most N characters".
 */
export function humanText({ max, allowEmpty = false }: TextRuleOptions) {
  const abort = true;
  const schema = z
    .string({ error: typeMessage("must be a string") })
    .normalize("NFC")
    .trim()
    .refine((v) => !LONE_SURROGATE.test(v), { error: "must be valid Unicode text", abort })
    .refine((v) => !CONTROL.test(v), { error: "must not contain control characters", abort })
    .refine((v) => !BIDI_CONTROL.test(v), {
      error: "must not contain bidirectional control characters",
      abort,
    })
    .refine((v) => !LINE_SEPARATOR.test(v), { error: "must not contain line or paragraph separators", abort })
    .refine((v) => !TAG.test(v), { error: "must not contain tag characters", abort });
  const present = allowEmpty ? schema : schema.min(1, { error: "must not be empty", abort });
  return present
    .refine((v) => (allowEmpty && v === "") || hasVisibleCharacter(v), {
      error: "must contain a visible character",
      abort,
    })
    .max(max, { error: `must be at most ${max} characters` });
}
