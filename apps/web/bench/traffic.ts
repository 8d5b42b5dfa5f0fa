/**
 * Realistic request mixes for `npm run bench` (docs/performance.md "How to reproduce"): many API keys chosen per
 * request (uniformly, or Zipf-distributed as real tenants are), random animal ids, and listPets pages of every
 * status filter and depth, reached through real `next` links. A page is held as (status, limit, last id before
 * it) so that the reference server, which has no signed cursors, serves the same rows.
 */
import { randomInt } from "node:crypto";

/** Picks an index in [0, n). */
export type Pick = () => number;

/** Uniform choice among `n`. */
export const uniform =
  (n: number): Pick =>
  () =>
    randomInt(n);

/**
 * Zipf choice among `n` with exponent `s` (1 by default: the k-th most active tenant sends 1/k of the first's
 * traffic). @returns a picker drawing from the precomputed cumulative distribution (binary search).
 */
export function zipf(n: number, s = 1): Pick {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    total += 1 / (k + 1) ** s;
    cdf[k] = total;
  }
  return () => {
    const u = Math.random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A listPets page: its filter, size, and where it starts (the project's cursor; the reference's `after` id). */
export interface Page {
  status?: "available" | "pending" | "sold";
  limit: number;
  /** The opaque cursor of the project's `next` link (absent on a first page). */
  cursor?: string;
  /** The id the page starts after (0 on a first page). */
  after: number;
}

const STATUSES = [undefined, "available", "pending", "sold"] as const;
const LIMITS = [10, 20, 50, 100] as const;

/** The query of `page` for the project (`cursor`) or for the reference (`after`). */
export function pageQuery(page: Page, reference: boolean): string {
  const q = new URLSearchParams({ limit: String(page.limit) });
  if (page.status) q.set("status", page.status);
  if (reference) q.set("after", String(page.after));
  else if (page.cursor) q.set("cursor", page.cursor);
  return q.toString();
}

/**
 * Every page of every status filter and page size, walked on the project through its `next` links with `key`.
 * @throws when a page does not answer 200.
 */
export async function collectPages(baseUrl: string, key: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (const status of STATUSES) {
    for (const limit of LIMITS) {
      let page: Page = { limit, after: 0, ...(status ? { status } : {}) };
      for (;;) {
        pages.push(page);
        const r = await fetch(`${baseUrl}/v1/pets?${pageQuery(page, false)}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        if (r.status !== 200) throw new Error(`listPets page: ${r.status} ${await r.text()}`);
        const items = (await r.json()) as { id: number }[];
        const next = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get("link") ?? "")?.[1];
        const cursor = next ? new URL(next).searchParams.get("cursor") : null;
        if (!cursor) break;
        page = { ...page, cursor, after: items.at(-1)?.id ?? 0 };
      }
    }
  }
  return pages;
}

/** Status of a seeded animal: a realistic spread over the three values and none. */
export const seededStatus = (i: number) =>
  (["available", "available", "pending", "sold", undefined] as const)[i % 5];
