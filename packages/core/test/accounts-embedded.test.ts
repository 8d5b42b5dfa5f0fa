/**
 * Consumer accounts on the embedded PGlite database, the default of `npm start` (docs/contract.md section 7): an
 * account's owner gets the invitation by mail from a real SMTP server (smtp-server, in this process), accepts it,
 * and a key of the account is verified, logged in the request log and refused once the account is suspended. An
 * SMTP server that accepts connections and never answers costs the mailer at most SMTP_TIMEOUT_MS and no error.
 */
import net from "node:net";
import { loadConfig } from "@petstore/config";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashInvitationToken } from "../src/accounts/invitations.ts";
import { createLogger } from "../src/logger.ts";
import { createMailer } from "../src/mail.ts";
import { openRuntime, type Runtime } from "../src/runtime.ts";
import { createTestDatabase, type TestDatabase } from "./fixtures/databases.ts";

const listen = (server: { listen(port: number, host: string, cb: () => void): unknown }, port = 0) =>
  new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));

describe("consumer accounts on the embedded database, with invitation mail", () => {
  let rt: Runtime;
  let database: TestDatabase | undefined;
  const mails: { to: string[]; text: string }[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          text: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  const silent = net.createServer(() => {});

  beforeAll(async () => {
    await listen(smtp);
    await listen(silent);
    const port = (smtp.server.address() as net.AddressInfo).port;
    database = await createTestDatabase("pglite", "petstore_accounts");
    rt = await openRuntime({
      config: loadConfig({
        ...database.env,
        LOG_LEVEL: "silent",
        PUBLIC_BASE_URL: "https://shop.example",
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        SMTP_FROM: "Pet Store <portal@shop.example>",
        PASSWORD_HASH_COST: "10",
      }),
      logger: createLogger("silent"),
    });
  });
  afterAll(async () => {
    await rt?.close();
    await database?.remove();
    smtp.close();
    silent.close();
  });

  it("mails the owner's link, which signs the owner up; the account's key works, is logged, and stops on suspension", async () => {
    const created = await rt.accounts.create(
      { name: "Corner Shop", plan: "free", ownerEmail: "olga@corner.example" },
      "test",
    );
    expect(created.invitation.mailed).toBe("sent");
    const [mail] = mails;
    expect(mail?.to).toEqual(["olga@corner.example"]);
    expect(mail?.text).toContain("From: Pet Store <portal@shop.example>");
    expect(mail?.text).toContain("Subject: You are invited to Corner Shop on the Pet Store developer portal");
    expect(mail?.text.replace(/=\r?\n/g, "")).toContain(created.invitationUrl);
    const token = created.invitationUrl.split("/").pop() as string;
    expect(created.invitationUrl).toBe(`https://shop.example/portal/invitations/${token}`);
    expect(hashInvitationToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(await rt.invitations.accept({ token, name: "Olga", password: "a long enough password" })).toEqual({
      email: "olga@corner.example",
    });

    const issued = await rt.apiKeys.createInAccount(created.id, { name: "till" }, "test");
    expect(await rt.apiKeys.authenticate(issued.key)).toMatchObject({
      account: { id: created.id, name: "Corner Shop" },
      rateLimitSubject: created.id,
    });
    rt.analytics?.record({
      keyId: issued.id,
      operation: "listPets",
      outcome: "2xx",
      status: 200,
      durationMs: 3,
      at: Date.now(),
      clientIp: "192.0.2.1",
      requestId: "embedded-1",
      log: {
        accountId: created.id,
        keyPrefix: issued.prefix,
        method: "GET",
        path: "/v1/pets",
        errorCode: null,
        minuteRemaining: 59,
        dayRemaining: 999,
      },
    });
    await rt.analytics?.flush();
    const { entries } = await rt.requestLog.search(created.id, { limit: 10 });
    expect(entries).toMatchObject([{ requestId: "embedded-1", status: 200, minuteRemaining: 59 }]);

    await rt.accounts.setSuspended({ id: created.id, suspended: true }, "test");
    expect(await rt.apiKeys.authenticate(issued.key)).toBeUndefined();
  });

  it("gives up on an SMTP server that never answers after SMTP_TIMEOUT_MS, without throwing", async () => {
    const { port } = silent.address() as net.AddressInfo;
    const config = loadConfig({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: "300" });
    const mailer = createMailer(config, createLogger("silent"));
    const started = performance.now();
    expect(await mailer({ to: "q@quiet.example", subject: "s", text: "t" })).toBe("failed");
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(
      await createMailer(
        loadConfig({}),
        createLogger("silent"),
      )({ to: "a@b.example", subject: "s", text: "t" }),
    ).toBe("off");
  });
});
