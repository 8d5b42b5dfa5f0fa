/**
 * Debugging the server (docs/operations.md "Debugging"): `--inspect=<host:port>` given to the server itself (what
 * `npm start -- --inspect` passes on) opens Node's inspector in the server's process; with NODE_OPTIONS=--inspect
 * whose port another process holds (npm's own Node, under `npm run`), the server still serves and says on stderr
 * how to debug it. The API role's server, as built; two starts, about 2 s each.
 */
import net from "node:net";
import { createMigratedDatabase, type TemporaryDatabase } from "@petstore/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/common.ts";
import { ensureBuild, SERVER_BUNDLE, startProductionServer } from "./production-server.ts";

describe("the inspector", () => {
  let db: TemporaryDatabase;

  beforeAll(async () => {
    await ensureBuild((line) => process.stdout.write(`${line}\n`));
    db = await createMigratedDatabase("petstore_inspector");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("opens in the server for its own --inspect argument", async () => {
    const [port, inspectorPort] = await Promise.all([freePort(), freePort()]);
    const server = await startProductionServer(
      port,
      { DATABASE_URL: db.url, PETSTORE_SERVE: "api" },
      60_000,
      SERVER_BUNDLE,
      [],
      { args: [`--inspect=127.0.0.1:${inspectorPort}`] },
    );
    try {
      const version = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/version`)).json()) as {
        Browser: string;
      };
      expect(version.Browser).toBe(`node.js/${process.version}`);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("says how to debug when NODE_OPTIONS' inspector port is held by another process, and serves", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const held = (holder.address() as net.AddressInfo).port;
    const port = await freePort();
    try {
      const server = await startProductionServer(port, {
        DATABASE_URL: db.url,
        PETSTORE_SERVE: "api",
        NODE_OPTIONS: `--inspect=127.0.0.1:${held}`,
      });
      try {
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        expect(server.output()).toContain("start the server with `npm start -- --inspect`");
      } finally {
        await server.stop();
      }
    } finally {
      holder.close();
    }
  });
});
