/**
 * Where start-up lines go (src/server/start-output.ts): text on a terminal or in staging; in production, off a
 * terminal, a JSON log line at info with the line as `msg`, even when LOG_LEVEL hides info (the start belongs in
 * every log), and nothing when LOG_LEVEL=silent.
 */
import { createLogger } from "@petstore/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startOutput } from "../../src/server/start-output.ts";
import { collectLogLines } from "../support/log-lines.ts";

/** A logger at `level` and the lines it wrote. */
function logged(level: string) {
  const { lines, sink } = collectLogLines();
  return { logger: createLogger(level, sink), lines };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("start-up output", () => {
  it("is a JSON line at info in production off a terminal, whatever LOG_LEVEL hides", () => {
    const { logger, lines } = logged("warn");
    const out = startOutput({ environment: "production", logLevel: "warn" }, logger, false);
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    out.line("Listening on port 3000 (PETSTORE_SERVE=all)", { port: 3000 });
    expect(out.human).toBe(false);
    expect(write).not.toHaveBeenCalled();
    expect(lines).toMatchObject([
      { level: 30, msg: "Listening on port 3000 (PETSTORE_SERVE=all)", port: 3000 },
    ]);
  });

  it("is nothing with LOG_LEVEL=silent in production", () => {
    const { logger, lines } = logged("silent");
    startOutput({ environment: "production", logLevel: "silent" }, logger, false).line("Listening on port 1");
    expect(lines).toEqual([]);
  });

  it.each([
    ["staging", false],
    ["production", true],
  ] as const)("is text in %s (terminal: %s)", (environment, tty) => {
    const { logger, lines } = logged("info");
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const out = startOutput({ environment, logLevel: "info" }, logger, tty);
    out.line("Listening on port 3000");
    expect(out.human).toBe(true);
    expect(write).toHaveBeenCalledWith("Listening on port 3000\n");
    expect(lines).toEqual([]);
  });
});
