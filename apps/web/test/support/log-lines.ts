/** The JSON lines a test's logger writes, collected in memory for assertions. */
import { Writable } from "node:stream";

/**
 * A stream for `createLogger(level, sink)` that parses every line it is given (pino writes one JSON object per
 * line) into `lines`, in order.
 * @returns the array the lines land in and the stream to give the logger.
 */
export function collectLogLines<Line = Record<string, unknown>>(): { lines: Line[]; sink: Writable } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split("\n")) if (text) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { lines, sink };
}
