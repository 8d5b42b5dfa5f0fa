/**
 * Forked by dashboard-link.test.ts: asks its parent, as the dashboard's pages do (dashboard-link.ts
 * `userOfSession`), for the user of each token given as an argument, and sends back what it got.
 */
import { userOfSession } from "../../src/server/dashboard-link.ts";

const results: unknown[] = [];
for (const token of process.argv.slice(2)) {
  results.push(
    await userOfSession(token).catch((error: unknown) => ({
      error: error instanceof Error ? error.message : String(error),
    })),
  );
}
process.send?.({ type: "results", results }, () => process.disconnect());
