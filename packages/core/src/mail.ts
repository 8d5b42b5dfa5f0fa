/**
 * Outgoing mail (docs/contract.md section 7: invitation links, when SMTP_URL is set; docs/operations.md "Mail"),
 * sent with nodemailer over the configured SMTP server. Every wait on the server is bounded by SMTP_TIMEOUT_MS
 * (connection, greeting, each socket read), so an unreachable server costs the admin a bounded wait and a log
 * line, never a hang: a link that could not be mailed is still shown to whoever made it.
 */
import type { Config } from "@petstore/config";
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";

/** A message to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends a message. @returns `sent`, `failed` (logged; the SMTP server refused it or did not answer in time), or
 * `off` when no SMTP server is configured. Never throws.
 */
export type Mailer = (message: MailMessage) => Promise<"sent" | "failed" | "off">;

/**
 * The mailer of `config.mail` (no mail without it). nodemailer is loaded with the first message: an instance that
 * never mails (an API instance, a store without SMTP) does not hold it in memory.
 */
export function createMailer(config: Pick<Config, "mail">, logger: Pick<Logger, "warn">): Mailer {
  const mail = config.mail;
  if (!mail) return async () => "off";
  let transport: Promise<Transporter> | undefined;
  const transportOf = () => {
    transport ??= import("nodemailer").then(({ createTransport }) =>
      createTransport({
        url: mail.url,
        connectionTimeout: mail.timeoutMs,
        greetingTimeout: mail.timeoutMs,
        socketTimeout: mail.timeoutMs,
      }),
    );
    return transport;
  };
  return async (message) => {
    try {
      await (await transportOf()).sendMail({ from: mail.from, ...message });
      return "sent";
    } catch (error) {
      logger.warn({ err: error, to: message.to }, "mail not sent");
      return "failed";
    }
  };
}
