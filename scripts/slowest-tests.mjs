#!/usr/bin/env node
/**
 * Prints the slowest test files of a vitest run, from its JSON report (`--reporter=json --outputFile.json=F`):
 * `node scripts/slowest-tests.mjs <report.json> [count]`, one line per file with its wall time in seconds (from its
 * first test's start to its last test's end, hooks included) and its number of tests.
 */
import fs from "node:fs";
import path from "node:path";

const [file, count = "10"] = process.argv.slice(2);
if (!file) {
  console.error("usage: slowest-tests.mjs <vitest-json-report> [count]");
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(file, "utf8"));
const root = path.resolve(import.meta.dirname, "..");
const files = report.testResults
  .map((r) => ({
    name: path.relative(root, r.name),
    seconds: (r.endTime - r.startTime) / 1000,
    tests: r.assertionResults.length,
  }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, Number(count));
console.log(`\nSlowest ${files.length} test files (wall time, tests):`);
for (const f of files)
  console.log(`${f.seconds.toFixed(1).padStart(7)} s  ${String(f.tests).padStart(4)}  ${f.name}`);
