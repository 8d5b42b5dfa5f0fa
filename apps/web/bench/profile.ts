/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `BENCH_PROFILE=<dir> npm run bench`): self time
 * grouped by npm package (the path segment after the last node_modules/), by workspace package
 * (packages/<name>, apps/web), Next's server bundle (.next/), node internals, GC and idle.
 * Usage: `tsx bench/profile.ts <file.cpuprofile> [top=25]`; prints percentages of the sampled time.
 */
import fs from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The group a frame's script URL belongs to. */
export function groupOf(url: string, fn: string): string {
  if (!url) return fn.startsWith("(") ? fn : "(native)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.includes("/.next/")) {
    const chunk = /\[root-of-the-server\]|node_modules_([a-z0-9@_.-]+?)_[0-9a-f]{4,}/.exec(url);
    return chunk?.[1] ? `.next chunk: ${chunk[1]}` : ".next (app bundle)";
  }
  if (url.startsWith("node:")) return "node internals";
  const ws = /\/(packages\/[^/]+|apps\/[^/]+)\//.exec(url);
  return ws?.[1] ?? url;
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: tsx bench/profile.ts <file.cpuprofile> [top]");
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const { url, functionName } = node.callFrame;
    const g = groupOf(url, functionName);
    self.set(g, (self.get(g) ?? 0) + dt);
    const f = `${functionName || "(anonymous)"} ${g}`;
    fns.set(f, (fns.get(f) ?? 0) + dt);
    total += dt;
  });
  const top = Number(topArg ?? 25);
  // The server idles while the bench measures the other servers: shares are also given of the busy time.
  const busy = total - (self.get("(idle)") ?? 0);
  const print = (title: string, m: Map<string, number>) => {
    process.stdout.write(
      `\n${title}: % of ${(total / 1e6).toFixed(1)} s sampled | % of ${(busy / 1e6).toFixed(1)} s busy\n`,
    );
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
      process.stdout.write(
        `${((100 * v) / total).toFixed(1).padStart(5)}% | ${k === "(idle) (idle)" || k === "(idle)" ? "   - " : ((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}\n`,
      );
  };
  print("Self time by package", self);
  print("Self time by function", fns);
}

main();
