/**
 * Forked by dashboard-link.test.ts: asks its parent, as the dashboard's pages do (next-child/parent-link.ts
 * `userOfSession`), for the user of each token given as an argument, then (`recordExists`) whether three API keys
 * exist, and sends back what it got.
 */
import { recordExists, userOfSession } from "../../src/server/next-child/parent-link.ts";

const results: unknown[] = [];
for (const token of process.argv.slice(2)) {
  results.push(
    await userOfSession(token).catch((error: unknown) => ({
      error: error instanceof Error ? error.message : String(error),
    })),
  );
}
// Then whether each of these API keys exists: one that does, one that does not, one behind an outage.
for (const recordId of ["key-known", "key-nobody", "key-down"]) {
  results.push(await recordExists("apiKey", recordId));
}
process.send?.({ type: "results", results }, () => process.disconnect());
