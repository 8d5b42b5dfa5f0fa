/** Literal text inside Prisma's `contains` / `startsWith` filters on PostgreSQL. */

/**
 * `text` for Prisma's `contains`/`startsWith`, which become SQL `LIKE '%' || text || '%'` / `LIKE text || '%'`:
 * escapes LIKE's wildcards `%` and `_` and its escape character `\` (PostgreSQL's default ESCAPE), so a search
 * matches the characters typed.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
