/**
 * The e2e mail capture: an SMTP server (smtp-server) in the server script's process that the app mails through
 * (SMTP_URL), appending each message to E2E_MAIL_FILE as a JSON line; tests read a person's mails from it.
 */
import fs from "node:fs";
import type net from "node:net";
import { expect } from "@playwright/test";
import { SMTPServer } from "smtp-server";
import { e2e } from "./accounts";

/** One captured message: its recipients and its raw text (headers and body). */
export interface CapturedMail {
  to: string[];
  raw: string;
}

/** Starts the capture on a free loopback port. @returns its SMTP URL and a function that stops it. */
export async function startMailCapture(file: string): Promise<{ url: string; close(): void }> {
  fs.writeFileSync(file, "", { mode: 0o600 });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, done) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        raw += chunk;
      });
      stream.on("end", () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        fs.appendFileSync(file, `${JSON.stringify({ to, raw } satisfies CapturedMail)}\n`);
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as net.AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, close: () => server.close() };
}

/** A quoted-printable body as text (RFC 2045 section 6.7): soft line breaks joined, `=XX` decoded. */
const unquote = (text: string) =>
  text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** The mails `to` has received so far, decoded, oldest first. */
export function mailsTo(to: string): string[] {
  const lines = fs.readFileSync(e2e.mailFile, "utf8").split("\n").filter(Boolean);
  return lines
    .map((line) => JSON.parse(line) as CapturedMail)
    .filter((mail) => mail.to.includes(to))
    .map((mail) => unquote(mail.raw));
}

/** Waits for the `count`-th mail to `to` (1-based) and returns its decoded text. */
export async function waitForMail(to: string, count: number): Promise<string> {
  await expect
    .poll(() => mailsTo(to).length, { message: `mail number ${count} to ${to}` })
    .toBeGreaterThanOrEqual(count);
  return mailsTo(to)[count - 1] ?? "";
}
