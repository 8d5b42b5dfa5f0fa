/**
 * HOST picks the address the server listens on (docs/operations.md "Configuration"): with HOST=127.0.0.1 it answers
 * there and refuses connections to its other loopback address, ::1; a HOST that is no address of the machine stops
 * start-up with exit code 1 and one line naming the fix. The API role's server, as built.
 */
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import { ensureBuild, runServerToExit, startProductionServer } from "./production-server.ts";

/** An address of the documentation range (RFC 5737) that no interface of the test machine holds. */
const FOREIGN = "198.51.100.1";

describe("HOST", () => {
  let db: TemporaryDatabase;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await createMigratedDatabase("petstore_bind_address");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("binds the server to the given address only", async () => {
    const port = await freePort();
    const server = await startProductionServer(port, {
      DATABASE_URL: db.url,
      PETSTORE_SERVE: "api",
      HOST: "127.0.0.1",
    });
    try {
      expect(server.output()).toContain(`Listening on port ${port} of 127.0.0.1 (PETSTORE_SERVE=api)`);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const other = await fetch(`http://[::1]:${port}/healthz`).then(
        (answer) => answer.status,
        (error: Error & { cause?: { code?: string } }) => error.cause?.code,
      );
      expect(other).toBe("ECONNREFUSED");
    } finally {
      await server.stop();
    }
  });

  it("stops start-up with one line when HOST is no address of the machine", async () => {
    const { code, stderr } = await runServerToExit({
      PETSTORE_SERVE: "api",
      DATABASE_URL: db.url,
      PORT: String(await freePort()),
      HOST: FOREIGN,
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `HOST ${FOREIGN} is not an address of this machine: set HOST to one of its addresses, or unset it to listen on every interface.\n`,
    );
  });
});
