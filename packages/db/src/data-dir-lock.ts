/**
 * One process at a time on an embedded database folder (docs/operations.md "Running it"). PGlite keeps the whole
 * database in the memory of the process that opened it and writes the folder back on its own schedule, so a second
 * process on the same folder works on a copy and its writes vanish. Opening therefore takes a lock in the folder
 * (`proper-lockfile`: an atomic `mkdir`, kept fresh while held and taken over once stale, so a crashed holder
 * never blocks the next start) and a second opener is refused.
 */
import path from "node:path";
import { EnvironmentStateError } from "@petstore/config";
import lockfile from "proper-lockfile";

/** The lock's name inside the data folder. */
export const DATA_DIR_LOCK_NAME = "petstore.lock";

/**
 * A held lock goes stale this long (ms) after its holder last refreshed it (it refreshes every third of it), e.g.
 * after a crash; long enough that a busy event loop never loses it.
 */
const STALE_MS = 30_000;

/**
 * Takes the embedded database folder `dir` for this process.
 * @returns the release, to call once the database is closed.
 * @throws EnvironmentStateError (a ConfigError: exit code 2) naming the folder when another opener holds it.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const lockfilePath = path.join(dir, DATA_DIR_LOCK_NAME);
  try {
    return await lockfile.lock(dir, {
      lockfilePath,
      realpath: false,
      stale: STALE_MS,
      update: STALE_MS / 3,
      // Losing the lock (the folder removed, or the process stalled past STALE_MS) must not end a serving process.
      onCompromised: (error) => process.emitWarning(`Embedded database lock lost: ${error.message}`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    throw new EnvironmentStateError(
      "PGLITE_DIR",
      `The embedded database ${dir} is open in another process (\`npm start\`, or another \`petstore\` command): ` +
        "stop it first, or point DATABASE_URL at PostgreSQL to share a database between processes " +
        `(the lock of a process that ended without closing it expires ${STALE_MS / 1000} s after it).`,
    );
  }
}
