#!/usr/bin/env node
/**
 * Checks that the documentation points at things that exist (`npm test` runs it): every relative link of every
 * Markdown file tracked by git, and every backticked repository path (`apps/...`, `packages/...`, `docs/...`,
 * `scripts/...`, `prisma/...`) in those files and in source comments, and every Markdown file they name, backticked
 * or not (`docs/contract.md`, `README.md`: from the repository's root or the naming file's folder); a path git
 * ignores (an output such as `bench-results/`) counts as existing. Prints each broken reference with its file and
 * line, and exits with 1 when there is any.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && fs.existsSync(path.join(root, f)));
const markdown = tracked.filter((f) => f.endsWith(".md"));
const sources = tracked.filter((f) => /\.(ts|tsx|mjs|js|sh)$/.test(f) && !f.includes("/generated/"));

/** A backticked path of the repository: it starts with one of its top folders. */
const REPO_PATH = /`((?:apps|packages|docs|scripts|prisma)\/[A-Za-z0-9_.@[\]()/-]+?)(?::\d+)?`/g;
/** A Markdown file named in prose or a comment (`docs/contract.md section 3`), not part of a longer name or URL. */
const MARKDOWN_FILE = /(?<![\w./@:-])((?:[A-Za-z0-9_.-]+\/)*[A-Za-z0-9_-]+\.md)\b/g;
/** A Markdown link or image target that is not a URL or an anchor. */
const LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

const problems = [];
/** Whether `p` exists, or is an output the project writes where git ignores it (`bench-results/...`, builds). */
const exists = (p) => {
  if (fs.existsSync(path.join(root, p))) return true;
  try {
    // The trailing slash lets a directory pattern (`dist/`) match a folder that is not built yet.
    execFileSync("git", ["check-ignore", "-q", "--no-index", `${p}/`], { cwd: root });
    return true;
  } catch {
    return false;
  }
};

for (const file of [...markdown, ...sources]) {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  lines.forEach((line, i) => {
    for (const [, target] of line.matchAll(REPO_PATH)) {
      // Globs and placeholders name no single file.
      if (/[*<>{}]|\.\.\./.test(target)) continue;
      if (!exists(target.replace(/\/$/, ""))) problems.push(`${file}:${i + 1}: no such path \`${target}\``);
    }
    for (const [, named] of line.matchAll(MARKDOWN_FILE)) {
      if (!exists(named) && !exists(path.join(path.dirname(file), named)))
        problems.push(`${file}:${i + 1}: no such Markdown file ${named}`);
    }
    if (!file.endsWith(".md")) return;
    for (const [, raw] of line.matchAll(LINK)) {
      if (/^(https?:|mailto:|#)/.test(raw)) continue;
      const target = raw.split("#")[0];
      if (!target) continue;
      const resolved = path.normalize(path.join(path.dirname(file), decodeURIComponent(target)));
      if (!exists(resolved)) problems.push(`${file}:${i + 1}: broken link (${raw})`);
    }
  });
}

if (problems.length) {
  process.stderr.write(
    `${problems.join("\n")}\n${problems.length} broken reference(s) in the docs and comments\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `docs: every link and repository path resolves (${markdown.length} Markdown files, ${sources.length} sources)\n`,
);
