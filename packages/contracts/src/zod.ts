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
