/**
 * What the dashboard's lists and detail pages decide without a browser (docs/contract.md section 4): a page past
 * the last one of a list is told apart from a list with no matches and offers the last page; an address whose id
 * is no key or endpoint id is the dashboard's 404.
 */
import { ApiKeyId, WebhookEndpointId } from "@petstore/contracts";
import { describe, expect, it } from "vitest";
import { lastPageIfPast } from "../../src/ui/components/pager";

describe("a page past the end of a list", () => {
  it("offers the last page when the page has nothing and the list has rows", () => {
    expect(lastPageIfPast({ page: 999, pageSize: 20, total: 41, shown: 0 })).toBe(3);
    expect(lastPageIfPast({ page: 2, pageSize: 20, total: 20, shown: 0 })).toBe(1);
  });

  it("is no such page when the page has rows, the list has none, or it is the first page", () => {
    expect(lastPageIfPast({ page: 3, pageSize: 20, total: 41, shown: 1 })).toBeNull();
    expect(lastPageIfPast({ page: 999, pageSize: 20, total: 0, shown: 0 })).toBeNull();
    expect(lastPageIfPast({ page: 1, pageSize: 20, total: 5, shown: 0 })).toBeNull();
  });
});

describe("the id in a detail page's address", () => {
  it("is a 404 unless it is a UUID", () => {
    for (const schema of [ApiKeyId, WebhookEndpointId]) {
      expect(schema.safeParse("0b6b8e4e-3c52-4f7e-9d4c-8f1d2a9e7c11").success).toBe(true);
      for (const malformed of ["42", "not-a-key", "0b6b8e4e-3c52-4f7e-9d4c-8f1d2a9e7c1", "%27%20or%201=1"])
        expect(schema.safeParse(malformed).success).toBe(false);
    }
  });
});
