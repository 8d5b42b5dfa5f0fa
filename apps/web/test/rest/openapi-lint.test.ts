/**
 * The served OpenAPI document passes Redocly's linter (`@redocly/openapi-core`, its `recommended` rules on top of
 * the OpenAPI 3.1 structure): no error, and no warning beyond the three the document has by design, named below.
 * Real answers are checked against the same document by every REST suite (support.ts `call`). About 0.5 s.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { useServer } from "./support.ts";

/** Rules of `recommended` the document departs from on purpose. */
const BY_DESIGN = {
  // The API is not published under a license.
  "info-license": "off",
  // The test deployment's PUBLIC_BASE_URL, and the documented example servers, are example.com addresses.
  "no-server-example.com": "off",
  // The 405 every path answers to an undeclared method is described once, for readers: no operation declares it.
  "no-unused-components": "off",
} as const;

describe("the OpenAPI document under Redocly's linter (postgres)", () => {
  const t = useServer("postgres");

  it("has no problem beyond the ones by design", async () => {
    const text = await (await t.s.fetch("/v1/openapi.json")).text();
    const config = await createConfig({ extends: ["recommended"], rules: BY_DESIGN });
    const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? "?"})`),
    ).toEqual([]);
  });
});
