/**
 * `petstore webhooks create|list|enable|disable|rotate|test|replay|delete` (docs/contract.md section 6), over
 * core's webhook service, which checks targets and audits every change as the dashboard's do.
 * - `create --url U --events a,b [--description D] [--json]` prints `{"id","url","events","secret"}` with `--json`;
 *   the secret is shown only then.
 * - `rotate <id> [--json]` likewise prints the new secret once; the old one keeps signing for 24 h.
 * - `test <id> [--type T]` sends a test message (`webhook.test`, or an example T event) from this process and exits
 *   with 1 when it was not delivered.
 * - `replay <message id> [--endpoint id]` and `replay --endpoint id --since T [--until T] [--failed]`, where T
 *   is a date and time (`2026-11-20T08:00:00Z`) or a time ago (`90m`, `24h`, `7d`).
 */
import {
  DurationText,
  WebhookEndpointId,
  WebhookEventTypes,
  WebhookMessageId,
  WebhookReplayRange,
  WebhookTestType,
  WebhookUrl,
} from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { z } from "zod";
import type { Output } from "../io.ts";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

/** `--since`/`--until`: an ISO date and time, or a duration ago. */
const instantOrAgo = z.string().transform((value, ctx) => {
  const ago = DurationText.safeParse(value);
  if (ago.success) return new Date(Date.now() - ago.data * 1000).toISOString();
  const at = z.iso.datetime({ offset: true }).safeParse(value);
  if (at.success) return at.data;
  ctx.addIssue({
    code: "custom",
    message: "must be a date and time such as 2026-11-20T08:00:00Z, or a time ago such as 24h",
  });
  return z.NEVER;
});

/** `<id> [--json]` of enable, disable and delete. */
const endpointRef = (args: string[], what: string) => {
  const { values, positionals } = parseOptions(args, { json: { type: "boolean" } }, 1);
  if (!positionals[0]) throw new UsageError(`webhooks ${what} needs an endpoint id`);
  return { id: parseValue(WebhookEndpointId, positionals[0], "<id>"), json: values.json ?? false };
};

async function create(rt: Runtime, args: string[], actor: string, out: Output) {
  const { values } = parseOptions(args, {
    url: { type: "string" },
    events: { type: "string" },
    description: { type: "string" },
    json: { type: "boolean" },
  });
  if (!values.url) throw new UsageError("webhooks create needs --url");
  if (!values.events) throw new UsageError("webhooks create needs --events (e.g. pet.created,pet.updated)");
  const created = await rt.webhooks.create(
    {
      url: parseValue(WebhookUrl, values.url, "--url"),
      eventTypes: parseValue(
        WebhookEventTypes,
        values.events.split(",").map((e) => e.trim()),
        "--events",
      ),
      description: values.description ?? "",
    },
    actor,
  );
  if (values.json)
    return out.print(
      JSON.stringify({
        id: created.id,
        url: created.url,
        events: created.eventTypes,
        secret: created.secret,
      }),
    );
  out.print(`Registered webhook endpoint ${created.id} for ${created.eventTypes.join(", ")}: ${created.url}`);
  out.print("");
  out.print(`  ${created.secret}`);
  out.print("");
  out.print("Store this signing secret now: it is shown only this once.");
}

async function list(rt: Runtime, args: string[], out: Output) {
  const { values } = parseOptions(args, { json: { type: "boolean" } });
  const endpoints = await rt.webhooks.list();
  if (values.json)
    return out.print(
      JSON.stringify(
        endpoints.map((e) => ({
          id: e.id,
          url: e.url,
          events: e.eventTypes,
          enabled: e.enabled,
          disabledReason: e.disabledReason,
          description: e.description,
          failingSince: e.failingSince,
          pending: e.pending,
          createdAt: e.createdAt,
        })),
      ),
    );
  if (endpoints.length === 0)
    return out.print(
      `No webhook endpoints yet. Add one with: ${out.command} webhooks create --url U --events pet.created`,
    );
  out.table(
    endpoints.map((e) => ({
      id: e.id,
      url: e.url,
      events: e.eventTypes.join(","),
      state: e.enabled ? (e.failingSince ? `failing since ${e.failingSince}` : "enabled") : "disabled",
      "disabled because": e.disabledReason ?? "",
      waiting: e.pending,
    })),
  );
}

async function rotate(rt: Runtime, args: string[], actor: string, out: Output) {
  const { values, positionals } = parseOptions(args, { json: { type: "boolean" } }, 1);
  if (!positionals[0]) throw new UsageError("webhooks rotate needs an endpoint id");
  const rotated = await rt.webhooks.rotate(parseValue(WebhookEndpointId, positionals[0], "<id>"), actor);
  if (values.json)
    return out.print(JSON.stringify({ id: rotated.id, url: rotated.url, secret: rotated.secret }));
  out.print(
    `New signing secret for ${rotated.url}; the old one also signs every delivery for the next 24 hours.`,
  );
  out.print("");
  out.print(`  ${rotated.secret}`);
  out.print("");
  out.print("Store it now: it is shown only this once.");
}

async function test(rt: Runtime, args: string[], actor: string, out: Output) {
  const { values, positionals } = parseOptions(
    args,
    { json: { type: "boolean" }, type: { type: "string" } },
    1,
  );
  if (!positionals[0]) throw new UsageError("webhooks test needs an endpoint id");
  const id = parseValue(WebhookEndpointId, positionals[0], "<id>");
  const type = values.type === undefined ? undefined : parseValue(WebhookTestType, values.type, "--type");
  const { messageId, attempt } = await rt.webhooks.sendTest(id, actor, type);
  const delivered = attempt?.outcome === "succeeded";
  if (values.json) {
    out.print(
      JSON.stringify({
        messageId,
        outcome: attempt?.outcome ?? null,
        status: attempt?.status ?? null,
        durationMs: attempt?.durationMs ?? null,
        error: attempt?.error ?? null,
      }),
    );
  } else if (delivered) {
    out.print(`Delivered test message ${messageId}: ${attempt?.status} in ${attempt?.durationMs} ms.`);
  } else {
    const why = attempt?.status
      ? `the endpoint answered ${attempt.status}`
      : (attempt?.error ?? "no attempt was made");
    out.print(
      `Test message ${messageId} was not delivered: ${why}.${attempt?.outcome === "retrying" ? " It will be retried." : ""}`,
    );
  }
  if (!delivered) out.exitCode = 1;
}

async function replay(rt: Runtime, args: string[], actor: string, out: Output) {
  const { values, positionals } = parseOptions(
    args,
    {
      endpoint: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      failed: { type: "boolean" },
      json: { type: "boolean" },
    },
    1,
  );
  let queued: number;
  if (positionals[0]) {
    if (values.since || values.until || values.failed)
      throw new UsageError("webhooks replay takes either a message id or --endpoint with --since, not both");
    queued = await rt.webhooks.replayMessage(
      {
        messageId: parseValue(WebhookMessageId, positionals[0], "<message id>"),
        ...(values.endpoint
          ? { endpointId: parseValue(WebhookEndpointId, values.endpoint, "--endpoint") }
          : {}),
      },
      actor,
    );
  } else {
    if (!values.endpoint || !values.since)
      throw new UsageError("webhooks replay needs a message id, or --endpoint <id> --since <time>");
    const input = parseValue(
      WebhookReplayRange,
      {
        endpointId: parseValue(WebhookEndpointId, values.endpoint, "--endpoint"),
        since: parseValue(instantOrAgo, values.since, "--since"),
        ...(values.until ? { until: parseValue(instantOrAgo, values.until, "--until") } : {}),
        failedOnly: values.failed ?? false,
      },
      "replay options",
    );
    queued = await rt.webhooks.replayRange(input, actor);
  }
  if (values.json) return out.print(JSON.stringify({ queued }));
  out.print(
    queued === 0
      ? "Nothing to replay."
      : `Queued ${queued} deliver${queued === 1 ? "y" : "ies"}; the server sends them with their original webhook-id.`,
  );
}

/** Runs `webhooks <sub> ...`. @throws UsageError for bad arguments. */
export async function webhooksCommand(
  rt: Runtime,
  args: string[],
  actor: string,
  out: Output,
): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "create":
      return create(rt, rest, actor, out);
    case "list":
      return list(rt, rest, out);
    case "enable": {
      const ref = endpointRef(rest, "enable");
      const endpoint = await rt.webhooks.enable(ref.id, actor);
      return out.print(ref.json ? JSON.stringify(endpoint) : `Enabled ${endpoint.url} (${endpoint.id}).`);
    }
    case "disable": {
      const ref = endpointRef(rest, "disable");
      const endpoint = await rt.webhooks.disable(ref.id, actor);
      return out.print(
        ref.json
          ? JSON.stringify(endpoint)
          : `Disabled ${endpoint.url} (${endpoint.id}); deliveries still waiting for it have failed.`,
      );
    }
    case "delete": {
      const ref = endpointRef(rest, "delete");
      await rt.webhooks.remove(ref.id, actor);
      return out.print(
        ref.json
          ? JSON.stringify({ id: ref.id })
          : `Deleted webhook endpoint ${ref.id} and its delivery log.`,
      );
    }
    case "rotate":
      return rotate(rt, rest, actor, out);
    case "test":
      return test(rt, rest, actor, out);
    case "replay":
      return replay(rt, rest, actor, out);
    default:
      throw new UsageError(
        sub
          ? `Unknown webhooks command: ${sub}`
          : "webhooks needs a command: create, list, enable, disable, rotate, test, replay, delete",
      );
  }
}
