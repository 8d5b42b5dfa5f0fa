/**
 * Defaults that more than one surface applies, defined once (docs/contract.md sections 1, 2 and 4).
 */

/** Page size of `GET /v1/pets` without `limit`, and of the dashboard's paged lists (section 1 "listPets"). */
export const DEFAULT_PAGE_SIZE = 20;
/** Largest page anyone may ask for. */
export const MAX_PAGE_SIZE = 100;
/**
 * Dashboard counts stop at this many (section 4 "Counts at scale"): a list's total and a category's animals are
 * exact up to it and "more than COUNT_CAP" beyond, so a page load never counts a whole large table.
 */
export const COUNT_CAP = 10_000;
/** How long a rolled key keeps working by default, seconds (section 2 "Roll": 24 h). */
export const DEFAULT_ROLL_GRACE_SECONDS = 24 * 3600;

/** Seconds as the CLI's duration text (`24h`, `90m`, `0`): the largest unit that divides it, days excepted. */
export function durationText(seconds: number): string {
  if (seconds === 0) return "0";
  for (const [unit, size] of [
    ["h", 3600],
    ["m", 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}
