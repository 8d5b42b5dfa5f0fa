/**
 * What the command reads and writes, passed in rather than taken from `process`, so `main` runs the same in
 * its own process (main.ts) and inside another one (the tests).
 */
import { Console } from "node:console";
import { Writable } from "node:stream";

/** Where the input comes from (`process.stdin`, or any async iterable of chunks, e.g. a Readable). */
export interface CliInput extends AsyncIterable<string | Uint8Array> {
  /** True for a terminal: the password prompt is shown then. */
  isTTY?: boolean;
}

/** The environment of one `main` call. */
export interface CliIo {
  /** The environment variables the configuration is read from (`loadConfig`). */
  env: Record<string, string | undefined>;
  /** Receives standard output text (lines end with "\n"). */
  stdout: (text: string) => void;
  /** Receives error text and log lines. */
  stderr: (text: string) => void;
  /** Standard input (the password of `users create`); none reads as empty. */
  stdin?: CliInput;
  /**
   * How an operator runs the command where it is installed, for the usage and the hints in messages:
   * `npm run petstore --` in the repository (the default), `node cli.js` in the production folder.
   */
  command?: string;
}

/** The command's name in messages when `io` names none: the repository's npm script. */
export const REPOSITORY_COMMAND = "npm run petstore --";

/** What a command writes, and the exit code it sets when it finishes without an error. */
export interface Output {
  /** Prints one line on stdout. */
  print(line: string): void;
  /** Prints `rows` as a table on stdout (console.table's layout). */
  table(rows: Record<string, unknown>[]): void;
  /** Reads the whole of stdin as text, without its final line break; prompts on stderr on a terminal. */
  readInput(prompt: string): Promise<string>;
  /** 0 unless the command sets another code (`webhooks test` when the message was not delivered). */
  exitCode: number;
  /** How the operator runs this command (`CliIo.command`), for hints such as "Create one with: …". */
  command: string;
  /** Prints one line on stderr (a warning that does not change the result). */
  warn(line: string): void;
}

/** A writable stream handing every chunk to `write` as text (for console.table and the logger). */
export function textSink(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(String(chunk));
      done();
    },
  });
}

/** The `Output` of one command run over `io`. */
export function outputOf(io: CliIo): Output {
  const tables = new Console({ stdout: textSink(io.stdout), stderr: textSink(io.stderr) });
  return {
    print: (line) => io.stdout(`${line}\n`),
    table: (rows) => tables.table(rows),
    async readInput(prompt) {
      if (!io.stdin) return "";
      if (io.stdin.isTTY) io.stderr(prompt);
      const chunks: Buffer[] = [];
      for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks)
        .toString("utf8")
        .replace(/\r?\n$/, "");
    },
    exitCode: 0,
    command: io.command ?? REPOSITORY_COMMAND,
    warn: (line) => io.stderr(`${line}\n`),
  };
}
