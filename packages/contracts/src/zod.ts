/**
 * The zod every contract is built with, extended with zod-to-openapi's `.openapi()` before any schema is
 * created (zod 4 copies prototype methods onto each schema at construction). Doing it here, not in the
 * web app, makes OpenAPI component refs work whatever order modules load in, and whether a runtime
 * resolves zod-to-openapi's CommonJS build (Node) or its ESM build (bundlers). Pure: no I/O.
 */
import { extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";

extendZodWithOpenApi(z);

export { z };

/**
 * The `error` option of a schema whose type check should speak plain words: "is required" when the value is
 * missing (a property absent from a body, a parameter not sent), else `message`. zod's own wording ("Invalid
 * input: expected string, received undefined") never reaches a client.
 */
export function typeMessage(message: string): (issue: { input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? "is required" : message);
}
