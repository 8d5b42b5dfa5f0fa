/**
 * The Next app's folder (apps/web, or the production folder) from a module in it: the nearest folder above `start`
 * (the source's folder under tsx, dist/ or the production folder in the bundle) holding next.config.mjs or, in the
 * production folder, which has Next's build without its source, `.next/required-server-files.json`.
 * @throws when there is none.
 */
import fs from "node:fs";
import path from "node:path";

const MARKERS = ["next.config.mjs", path.join(".next", "required-server-files.json")];

export function appDirectory(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (MARKERS.some((marker) => fs.existsSync(path.join(dir, marker)))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no Next app (next.config.mjs or a build) above ${start}`);
  }
}
