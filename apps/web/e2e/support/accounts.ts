/**
 * The e2e run's accounts and server address, shared by the Playwright config, the server script and the
 * tests through environment variables (set once by the config, inherited by every process it starts).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePortSync } from "../../test/support/common.ts";

/** Sets the E2E_* variables once per run (a no-op in worker processes, which inherit them). */
export function ensureE2eEnv(): void {
  process.env.E2E_PORT ??= String(freePortSync());
  process.env.E2E_ADMIN_PASSWORD ??= `admin-${randomBytes(9).toString("base64url")}`;
  process.env.E2E_STAFF_PASSWORD ??= `staff-${randomBytes(9).toString("base64url")}`;
  process.env.E2E_STATE_FILE ??= path.join(os.tmpdir(), `petstore-e2e-${process.env.E2E_PORT}.json`);
  // The mails the server sends, as the e2e mail capture received them (support/mail.ts).
  process.env.E2E_MAIL_FILE ??= path.join(os.tmpdir(), `petstore-e2e-${process.env.E2E_PORT}.mail.jsonl`);
}

/** What the server script prepared for the tests beyond the accounts. */
export interface E2eState {
  /** An API key (Enterprise, generous limits) the tests use to look at the data through the REST API. */
  checkerKey: string;
  /** Category ids by name. */
  categories: Record<string, number>;
  /** An account whose only invitation (its owner's, lapsed-owner@example.com) has expired. */
  lapsedAccountId: string;
}

/** Written by the server script once the database is ready. */
export function writeState(state: E2eState): void {
  fs.writeFileSync(String(process.env.E2E_STATE_FILE), JSON.stringify(state), { mode: 0o600 });
}

/** Read by the tests. @throws when the server script has not written it. */
export function readState(): E2eState {
  return JSON.parse(fs.readFileSync(String(process.env.E2E_STATE_FILE), "utf8")) as E2eState;
}

/** A staff account of the run, signed in with the staff password. */
const staffAccount = (email: string, name: string) => ({
  email,
  name,
  get password() {
    return process.env.E2E_STAFF_PASSWORD ?? "";
  },
});

export const e2e = {
  get baseUrl() {
    return `http://127.0.0.1:${process.env.E2E_PORT}`;
  },
  /** The file the e2e mail capture appends the server's mails to (support/mail.ts). */
  get mailFile() {
    return String(process.env.E2E_MAIL_FILE);
  },
  admin: {
    email: "e2e-admin@example.com",
    name: "Erin Admin",
    get password() {
      return process.env.E2E_ADMIN_PASSWORD ?? "";
    },
  },
  staff: staffAccount("e2e-staff@example.com", "Stan Staff"),
  /** A staff account only the session tests sign in to: they end its sessions, which no other test may lose. */
  traveller: staffAccount("e2e-traveller@example.com", "Tara Traveller"),
  /** A staff account only the password reset test uses: it gets a new password. */
  forgetful: staffAccount("e2e-forgetful@example.com", "Fay Forgetful"),
  /** A staff account only the two-factor test uses: it turns two-factor sign-in on. */
  twoFactor: staffAccount("e2e-two-factor@example.com", "Tom Twofactor"),
  /** A third account only the throttling test signs in to (its lock-out must not disturb the others). */
  throttled: staffAccount("e2e-throttle@example.com", "Theo Throttle"),
};
