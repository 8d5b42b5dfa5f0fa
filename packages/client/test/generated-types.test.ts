/**
 * The client's types are generated from the OpenAPI document the REST app serves: this fails when the
 * committed `src/generated/v1.ts` is stale (fix: `npm run -w @petstore/client generate`).
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, schemaSourceFrom, servedDocument } from "../scripts/generate.ts";

describe("generated client types", () => {
  it("match the served OpenAPI document", async () => {
    const document = await servedDocument();
    const committed = fs.readFileSync(SCHEMA_FILE, "utf8");
    expect(committed, "stale: run npm run -w @petstore/client generate").toBe(
      await schemaSourceFrom(document),
    );

    // The comparison notices a change of the document (here: getPet no longer deprecated).
    const changed = structuredClone(document) as { paths: Record<string, { get: { deprecated?: boolean } }> };
    const getPet = changed.paths["/pets/{petId}"]?.get;
    expect(getPet?.deprecated).toBe(true);
    if (getPet) getPet.deprecated = false;
    expect(await schemaSourceFrom(changed)).not.toBe(committed);
  });
});
