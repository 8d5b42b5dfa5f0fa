/**
 * GitHub's secret-scanning partner program (docs/contract.md section 2, "Leaked keys"): the report GitHub posts,
 * and the answer it expects (docs.github.com, "Secret scanning partner program").
 */
import { z } from "./zod.ts";

/** The path that takes GitHub's reports (outside /v1: GitHub holds no API key). */
export const SECRET_SCANNING_PATH = "/api/hooks/github/secret-scanning";

/** Headers of a report: which of GitHub's keys signed it, and the base64 DER ECDSA signature of the raw body. */
export const SECRET_SCANNING_KEY_ID_HEADER = "github-public-key-identifier";
export const SECRET_SCANNING_SIGNATURE_HEADER = "github-public-key-signature";

/** Largest report body taken, bytes, and most tokens in one report. */
export const SECRET_SCANNING_MAX_BODY_BYTES = 1024 * 1024;
export const SECRET_SCANNING_MAX_MATCHES = 1000;

/** One match GitHub found: the token, its type (the pattern's name), and where (fields GitHub adds are ignored). */
export const SecretScanningMatch = z.object({
  token: z.string().max(1000),
  type: z.string().max(200),
  url: z.string().max(2000).optional(),
  source: z.string().max(200).optional(),
});
export type SecretScanningMatch = z.infer<typeof SecretScanningMatch>;

/** A report: the matches of one batch. */
export const SecretScanningReport = z.array(SecretScanningMatch).max(SECRET_SCANNING_MAX_MATCHES);

/** The answer for one match: `true_positive` when the token is a live key of this deployment. */
export interface SecretScanningLabel {
  token_raw: string;
  token_type: string;
  label: "true_positive" | "false_positive";
}
