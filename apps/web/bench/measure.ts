/**
 * Measuring for `npm run bench`: autocannon runs tallied per (scenario, server) with exact latency
 * percentiles over every response, alternating rounds over several servers, Redis commands per request, and
 * the resident memory of a server's process tree.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { type CommandOptions, WEB_DIR } from "../test/instances/production-server.ts";
import { addDelta, commandCalls } from "./redis.ts";

/**
 * Where a benched server writes its log: `bench-results/<name>.log`, a file, so that its log lines never cost the
 * load generator's CPU (in production they go to a collector, not to the clients).
 */
export function serverLog(name: string): Pick<CommandOptions, "logFile"> {
  const dir = path.join(WEB_DIR, "bench-results");
  fs.mkdirSync(dir, { recursive: true });
  return { logFile: path.join(dir, `${name}.log`) };
}

/** A benched request. */
export interface Scenario {
  name: string;
  /** Builds the autocannon options for a server (`reference`: the bench's reference server, bench/reference.ts). */
  options(baseUrl: string, reference?: boolean): Parameters<typeof autocannon>[0];
  /** Sends one such request (fetch) and returns its status. */
  once(baseUrl: string): Promise<number>;
  /** Gets what the scenario consumes ready on every target before it is measured (the order scenario's animals). */
  prepare?(targets: Target[]): Promise<void>;
}

/** A server under measurement. */
export interface Target {
  baseUrl: string;
  pid?: number;
  /** True for the reference server, which takes `after=<id>` where the project takes a signed cursor. */
  reference?: boolean;
}

export interface Measurement {
  reqPerSec: number;
  /** CPU time (user + system) the server's process tree spent per response, in ms: robust to background load. */
  cpuMsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  statusCodes: Record<string, number>;
  errors: number;
}

export const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
export const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
/** The median of `xs` (the lower middle of an even count); NaN for none. */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : Number.NaN;
};
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** Accumulates the rounds of one scenario on one server. */
export class Tally {
  latencies: number[] = [];
  statusCodes: Record<string, number> = {};
  seconds = 0;
  errors = 0;
  cpuMs = 0;

  result(): Measurement {
    const sorted = Float64Array.from(this.latencies).sort();
    const pct = (p: number) =>
      round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0, 1);
    return {
      reqPerSec: round(sorted.length / this.seconds, 1),
      cpuMsPerRequest: round(this.cpuMs / Math.max(1, sorted.length), 3),
      p50Ms: pct(50),
      p99Ms: pct(99),
      requests: sorted.length,
      seconds: round(this.seconds, 2),
      statusCodes: this.statusCodes,
      errors: this.errors,
    };
  }
}

/** One timed run of `scenario` against `target` with `connections`, added to `tally` (none: a warm-up). */
export async function runOnce(
  scenario: Scenario,
  target: Target,
  seconds: number,
  connections: number,
  tally?: Tally,
): Promise<void> {
  const instance = autocannon({
    ...scenario.options(target.baseUrl, target.reference),
    connections,
    duration: seconds,
  });
  if (tally) {
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      tally.latencies.push(responseTime);
      tally.statusCodes[statusCode] = (tally.statusCodes[statusCode] ?? 0) + 1;
    });
  }
  const cpuBefore = cpuMs(target.pid);
  const r = await instance;
  if (!tally) return;
  tally.cpuMs += cpuMs(target.pid) - cpuBefore;
  tally.seconds += r.duration;
  tally.errors += r.errors + r.timeouts;
}

/**
 * Measures `scenario` on every target: a warm-up on each, then `rounds` rounds of `seconds / rounds` each in a
 * rotating order (A B C, B C A, C A B, ...), so that background load drifting meanwhile hits all alike.
 */
export async function measureRounds(
  scenario: Scenario,
  targets: Target[],
  tallies: Tally[],
  opts: { seconds: number; rounds: number; warmup: number; connections: number },
): Promise<void> {
  for (const t of targets) await runOnce(scenario, t, opts.warmup, opts.connections);
  for (let i = 0; i < opts.rounds; i++) {
    for (let j = 0; j < targets.length; j++) {
      const k = (i + j) % targets.length;
      await runOnce(scenario, targets[k] as Target, opts.seconds / opts.rounds, opts.connections, tallies[k]);
    }
  }
}

export interface RedisUse {
  /** Client commands per request with the limiter on, net of what other Redis users sent meanwhile. */
  commandsPerRequest: number;
  /** The same by command (gross, before subtracting other users). */
  byCommand: Record<string, number>;
  probeRequests: number;
}

/**
 * Redis commands per request: exactly `n` requests (10 at a time) against each server, with INFO
 * commandstats read around each batch; the limiter-off batch measures other Redis users' rate, subtracted.
 */
export async function probeRedis(scenario: Scenario, on: Target, off: Target, n = 300): Promise<RedisUse> {
  const batch = async (target: Target) => {
    const before = await commandCalls();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < n) {
          next++;
          await scenario.once(target.baseUrl);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const counts: Record<string, number> = {};
    addDelta(counts, before, await commandCalls());
    return { counts, seconds };
  };
  const quiet = await batch(off);
  const loaded = await batch(on);
  const noise = (sum(quiet.counts) / quiet.seconds) * loaded.seconds;
  return {
    commandsPerRequest: round((sum(loaded.counts) - noise) / n, 2),
    byCommand: Object.fromEntries(Object.entries(loaded.counts).map(([cmd, c]) => [cmd, round(c / n, 3)])),
    probeRequests: n,
  };
}

/** The pids of the process tree rooted at `pid` (Linux /proc; empty when unknown). */
function processTree(pid: number): number[] {
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
    return [pid, ...children.filter(Boolean).map(Number).flatMap(processTree)];
  } catch {
    return [];
  }
}

/** CPU time (user + system, ms) used so far by the process tree rooted at `pid`; 0 when unknown. */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  return processTree(pid).reduce((total, p) => {
    try {
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return total + (Number(fields[11]) + Number(fields[12])) * tick;
    } catch {
      return total;
    }
  }, 0);
}

/**
 * Resident memory (MB) of the largest process in the tree rooted at `pid` (the serving node process; `tsx`
 * runs the server in a child of the pid it was started as). Linux /proc only; 0 when unknown.
 */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const read = (p: number): number => {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, "utf8");
      const own = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const children = fs
        .readFileSync(`/proc/${p}/task/${p}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
      return Math.max(own, ...children.map(read));
    } catch {
      return 0;
    }
  };
  return round(read(pid), 1);
}

/** The status of a response, its body read and dropped. */
export async function status(response: Promise<Response>): Promise<number> {
  const r = await response;
  await r.arrayBuffer();
  return r.status;
}
