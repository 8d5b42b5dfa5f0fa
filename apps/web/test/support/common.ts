/**
 * Small helpers shared by the vitest suites (test/), the end-to-end setup (e2e/) and the benchmarks (bench/):
 * the test accounts' password and free ports. Only Node built-ins are imported, so that the Playwright config
 * can load it. Waiting helpers (`sleep`, `eventually`, `pollUntil`) are in `@petstore/core/testing`.
 */
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { z } from "zod";
import { readOptions } from "./options.ts";

/** The password of the accounts the suites create. */
export const PASSWORD = "correct horse battery staple";

const handedOut = new Set<number>();

/** A free TCP port on 127.0.0.1 (bound, then released), never the same twice in this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/** A free TCP port on 127.0.0.1, found synchronously (for configuration that must know it when it is loaded). */
export function freePortSync(): number {
  const script =
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

/**
 * fast-check parameters of a property suite: `runs` runs from the fixed `seed`, so that a failure reproduces;
 * FC_RUNS and FC_SEED override them (to run longer, or to replay a seed fast-check reported).
 */
export function propertyRuns(runs: number, seed: number) {
  const given = readOptions(
    z.object({
      runs: z.coerce.number().int().positive().default(runs),
      seed: z.coerce.number().int().default(seed),
    }),
    { runs: { env: "FC_RUNS" }, seed: { env: "FC_SEED" } },
  );
  return { numRuns: given.runs, seed: given.seed, endOnFailure: true } as const;
}
