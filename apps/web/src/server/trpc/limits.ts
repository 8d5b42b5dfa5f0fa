/**
 * Size limits of the dashboard's tRPC endpoint, shared by the server (handler.ts) and the browser client
 * (src/ui/trpc.tsx keeps its batches within them). No imports: safe in both bundles.
 */

/** Most procedure calls one HTTP request may batch; a larger batch is refused (400) before any call runs. */
export const TRPC_MAX_BATCH_SIZE = 10;

/** Largest request body, bytes; larger bodies are refused with 413 before they are parsed. */
export const TRPC_MAX_BODY_BYTES = 64 * 1024;
