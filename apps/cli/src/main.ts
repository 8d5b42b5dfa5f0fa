#!/usr/bin/env -S npx tsx
/**
 * The process entry of the `petstore` operator command, run as `npm run petstore -- <command>`: runs `main`
 * (cli.ts) with the process's arguments, environment and streams, and exits with its code. It exits
 * explicitly because Prisma's WASM schema engine (db migrate, the embedded database) leaves a ~10 s timer
 * behind.
 */
import { main } from "./cli.ts";

const code = await main(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
});
process.exit(code);
