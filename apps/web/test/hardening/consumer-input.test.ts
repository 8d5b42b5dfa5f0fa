/**
 * What an outside API consumer meets, over HTTP against the app served in process (in-process.ts; docs/contract.md section 1): a
 * body that is not UTF-8 is refused and changes nothing, validation messages are plain words, and the
 * OpenAPI document lists this deployment first and states its limits exactly.
 */
import { databaseOf } from "@petstore/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { type InProcessApp, useInProcessApp } from "./in-process.ts";
import { rest } from "./support.ts";

describe("consumer input and the document", () => {
  const app: InProcessApp = useInProcessApp();
  let categoryId = 0;

  beforeAll(async () => {
    categoryId = Number((await databaseOf(app.db.rt).prisma.category.findFirstOrThrow()).id);
  });

  const petCount = () => databaseOf(app.db.rt).prisma.pet.count();

  it("refuses a body that is not UTF-8 with 400 invalid_request, creating nothing", async () => {
    const before = await petCount();
    const body = Buffer.concat([
      Buffer.from('{"name":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`b","categoryId":${categoryId}}`),
    ]);
    const r = await rest(app, "/v1/pets", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "not-utf8" },
      body: body as unknown as BodyInit,
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toEqual({
      code: "invalid_request",
      message: "The request body is not valid UTF-8.",
      status: 400,
    });
    expect(await petCount()).toBe(before);
    expect(
      await databaseOf(app.db.rt).prisma.pet.findFirst({ where: { name: { contains: "\uFFFD" } } }),
    ).toBeNull();
  });

  it("words validation failures plainly", async () => {
    const missing = await rest(app, "/v1/pets", { method: "POST", body: JSON.stringify({ categoryId }) });
    expect(missing.body).toMatchObject({
      code: "validation_failed",
      message: "Invalid name: is required",
      details: [{ path: "name", message: "is required" }],
    });
    const cursor = await rest(app, "/v1/pets?cursor=");
    expect(cursor.body).toMatchObject({ details: [{ path: "cursor", message: "must not be empty" }] });
  });

  it("lists this deployment first and writes petId's maximum exactly", async () => {
    const r = await fetch(`${app.baseUrl}/v1/openapi.json`);
    const text = await r.text();
    const doc = JSON.parse(text) as { servers: { url: string }[] };
    expect(doc.servers[0]?.url).toBe(`${app.baseUrl}/v1`);
    expect(doc.servers).toHaveLength(3);
    expect(text).toContain('"maximum":9223372036854775807');
  });
});
