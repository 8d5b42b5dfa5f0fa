/**
 * Measuring for `npm run bench`: runs of wrk (a scenario that lists its requests: bench/wrk.lua) or autocannon
 * tallied per (scenario, server), alternating rounds over several servers, the servers' CPU from /proc, and the
 * resident memory of a server's process tree.
 */
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { type CommandOptions, WEB_DIR } from "../test/instances/production-server.ts";

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
  /**
   * `count` requests drawn as the scenario draws them, for wrk (bench/wrk.lua): lines of
   * `METHOD<tab>path<tab>Authorization value or empty<tab>JSON body or empty`. A scenario with it is measured with
   * wrk, a load generator in C that leaves the servers more of the two cores than autocannon in the bench's own
   * process.
   */
  requests?(baseUrl: string, reference: boolean, count: number): string[];
  /** Sends one such request (fetch) and returns its status. */
  once(baseUrl: string): Promise<number>;
  /** Gets what the scenario consumes ready on every target before it is measured (the order scenario's animals). */
  prepare?(targets: Target[]): Promise<void>;
}

/** A server under measurement. */
export interface Target {
  baseUrl: string;
  pid?: number;
  /** True for the servers without signed cursors (the reference and the peer), which take `after=<id>`. */
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
  /** Every response's latency (ms), of autocannon's runs. */
  latencies: number[] = [];
  /** wrk's runs: each round's latency quantiles (ms), each standing for `weight` responses. */
  quantiles: { weight: number; ms: number[] }[] = [];
  statusCodes: Record<string, number> = {};
  seconds = 0;
  errors = 0;
  cpuMs = 0;

  result(): Measurement {
    const samples: [ms: number, weight: number][] = this.latencies.map((ms) => [ms, 1]);
    for (const q of this.quantiles) for (const ms of q.ms) samples.push([ms, q.weight]);
    samples.sort((a, b) => a[0] - b[0]);
    const total = samples.reduce((n, [, w]) => n + w, 0);
    const pct = (p: number) => {
      let seen = 0;
      for (const [ms, w] of samples) {
        seen += w;
        if (seen >= (p / 100) * total - 1e-9) return round(ms, 1);
      }
      return round(samples.at(-1)?.[0] ?? 0, 1);
    };
    const requests = Math.round(total);
    return {
      reqPerSec: round(requests / this.seconds, 1),
      cpuMsPerRequest: round(this.cpuMs / Math.max(1, requests), 3),
      p50Ms: pct(50),
      p99Ms: pct(99),
      requests,
      seconds: round(this.seconds, 2),
      statusCodes: this.statusCodes,
      errors: this.errors,
    };
  }
}

/** Lines of a scenario's request file: more than any round sends, so that a round repeats none. */
const REQUEST_LINES = 100_000;
const WRK_SCRIPT = path.join(import.meta.dirname, "wrk.lua");
const requestFiles = new Map<string, string>();
process.once("exit", () => {
  for (const file of requestFiles.values()) fs.rmSync(file, { force: true });
});

/** The request file of `scenario` for `target`, written on first use. */
function requestFile(scenario: Scenario & Required<Pick<Scenario, "requests">>, target: Target): string {
  const id = `${scenario.name}|${target.baseUrl}`;
  let file = requestFiles.get(id);
  if (!file) {
    file = path.join(os.tmpdir(), `petstore-bench-${process.pid}-${requestFiles.size}.tsv`);
    const lines = scenario.requests(target.baseUrl, Boolean(target.reference), REQUEST_LINES);
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    requestFiles.set(id, file);
  }
  return file;
}

/** One wrk run (one thread, from a random line of `file`): its requests, seconds, errors and latency quantiles. */
async function runWrk(file: string, baseUrl: string, seconds: number, connections: number) {
  const args = [
    "-t1",
    `-c${connections}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    "--timeout",
    "10s",
    "-s",
    WRK_SCRIPT,
    baseUrl,
    "--",
    file,
    String(randomInt(REQUEST_LINES)),
  ];
  const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  const line = out.split("\n").find((l) => l.startsWith("WRK "));
  if (code !== 0 || !line) throw new Error(`wrk ${args.join(" ")} failed (${code}): ${out}`);
  return JSON.parse(line.slice(4)) as {
    requests: number;
    durationUs: number;
    errors: number;
    non2xx: number;
    quantilesUs: number[];
  };
}

/** One timed run of `scenario` against `target` with `connections`, added to `tally` (none: a warm-up). */
export async function runOnce(
  scenario: Scenario,
  target: Target,
  seconds: number,
  connections: number,
  tally?: Tally,
): Promise<void> {
  if (scenario.requests) {
    const file = requestFile(scenario as Scenario & Required<Pick<Scenario, "requests">>, target);
    const before = cpuMs(target.pid);
    const r = await runWrk(file, target.baseUrl, seconds, connections);
    if (!tally) return;
    tally.cpuMs += cpuMs(target.pid) - before;
    tally.seconds += r.durationUs / 1e6;
    tally.errors += r.errors;
    tally.quantiles.push({
      weight: r.requests / r.quantilesUs.length,
      ms: r.quantilesUs.map((us) => us / 1000),
    });
    const ok = r.requests - r.non2xx;
    if (ok > 0) tally.statusCodes["2xx/3xx"] = (tally.statusCodes["2xx/3xx"] ?? 0) + ok;
    if (r.non2xx > 0) tally.statusCodes.other = (tally.statusCodes.other ?? 0) + r.non2xx;
    return;
  }
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
