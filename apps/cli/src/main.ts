#!/usr/bin/env -S npx tsx
/**
 * The process entry of the `petstore` operator command (docs/operations.md "The `petstore` command"): runs `main`
 * (cli.ts) with the process's arguments, environment and streams, waits until stdout and stderr have handed
 * everything to the system (a pipe takes 64 KiB at a time, as fast as its reader reads), then exits with its
 * code. It exits explicitly because Prisma's WASM schema engine (db migrate, the embedded database) leaves a
 * ~10 s timer behind.
 */
import { main } from "./cli.ts";

// The production folder's bundle defines it (apps/web/scripts/production-folder.mjs); in the repository the
// command runs through npm.
declare const PETSTORE_COMMAND: string | undefined;
const command = typeof PETSTORE_COMMAND === "string" ? PETSTORE_COMMAND : "npm run petstore --";

/**
 * Resolves once everything written to `stream` so far is written (a write's callback runs after the earlier
 * ones'), or at once when the reader has gone away (EPIPE: nothing more can be delivered).
 */
function written(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableLength === 0) return resolve();
    stream.once("error", () => resolve());
    stream.write("", () => resolve());
  });
}

// A reader that stops reading early (`petstore keys list --json | head -c 100`) is not an error of the command.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});

const code = await main(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  command,
});
await Promise.all([written(process.stdout), written(process.stderr)]);
process.exit(code);
