/**
 * The Next app's folder (apps/web) from a module in it: the nearest folder holding next.config.mjs above `start`
 * (the source's folder under tsx, dist/ in the bundle). @throws when there is none.
 */
import fs from "node:fs";
import path from "node:path";

export function appDirectory(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "next.config.mjs"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no next.config.mjs above ${start}`);
  }
}
