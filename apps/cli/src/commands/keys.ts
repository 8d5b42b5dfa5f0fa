/** `petstore keys create|list|revoke|roll|scopes|unban` (docs/contract.md sections 2 and 5). */
import {
  ApiKeyCreate,
  ApiKeyScopes,
  DEFAULT_ROLL_GRACE_SECONDS,
  DurationText,
  durationText,
  PlanName,
  RateLimitValue,
  RollGraceSeconds,
  scopeList,
} from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { z } from "zod";
import type { Output } from "../io.ts";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

const positiveNumber = z
  .string()
  .regex(/^[0-9]+$/, { error: "must be a whole number" })
  .transform(Number)
  .pipe(RateLimitValue);

/** `--json` output of a new key (create, roll): `{"id","key","prefix","plan","scopes"}`. */
const issuedJson = (key: Awaited<ReturnType<Runtime["apiKeys"]["create"]>>) =>
  JSON.stringify({ id: key.id, key: key.key, prefix: key.prefix, plan: key.plan, scopes: key.scopes });

async function create(rt: Runtime, args: string[], actor: string, out: Output) {
  const { values } = parseOptions(args, {
    name: { type: "string" },
    plan: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
    "expires-in": { type: "string" },
    scopes: { type: "string" },
    json: { type: "boolean" },
  });
  if (!values.name) throw new UsageError("keys create needs --name");
  if (!values.plan) throw new UsageError("keys create needs --plan");
  const expiresIn = values["expires-in"]
    ? parseValue(DurationText, values["expires-in"], "--expires-in")
    : undefined;
  const input = parseValue(
    ApiKeyCreate,
    {
      name: values.name,
      plan: parseValue(PlanName, values.plan, "--plan"),
      perMinute: values["per-minute"]
        ? parseValue(positiveNumber, values["per-minute"], "--per-minute")
        : undefined,
      perDay: values["per-day"] ? parseValue(positiveNumber, values["per-day"], "--per-day") : undefined,
      expiresInSeconds: expiresIn || undefined,
      scopes: values.scopes === undefined ? undefined : scopeList(values.scopes),
    },
    "key options",
    { expiresInSeconds: "--expires-in" },
  );
  const key = await rt.apiKeys.create(input, actor);
  if (values.json) {
    out.print(issuedJson(key));
  } else {
    out.print(
      `Created key ${key.prefix}… (id ${key.id}, plan ${key.plan}, scopes ${key.scopes.join(",")}${key.expiresAt ? `, expires ${key.expiresAt}` : ""})`,
    );
    out.print("");
    out.print(`  ${key.key}`);
    out.print("");
    out.print("Store it now: the secret is shown only this once.");
  }
}

async function list(rt: Runtime, args: string[], out: Output) {
  const { values } = parseOptions(args, { json: { type: "boolean" } });
  // Requests today come from the usage service, the same figure every dashboard screen shows.
  const keys = await rt.usage.withRequestsToday(await rt.apiKeys.list());
  if (values.json) return out.print(JSON.stringify(keys));
  if (keys.length === 0)
    return out.print(`No API keys yet. Create one with: ${out.command} keys create --name N --plan free`);
  const rows = keys.map((k) => ({
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    plan: k.plan,
    scopes: k.scopes.join(","),
    state: k.state,
    limits: `${k.effectivePerMinute ?? "-"}/min ${k.effectivePerDay ?? "-"}/day`,
    "banned until": k.bannedUntil ?? "",
    "last used": k.lastUsedAt ?? "never",
    "requests today": k.requestsToday,
  }));
  out.table(rows);
}

/** Runs `keys <sub> ...`. @throws UsageError for bad arguments. */
export async function keysCommand(rt: Runtime, args: string[], actor: string, out: Output): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "create":
      return create(rt, rest, actor, out);
    case "list":
      return list(rt, rest, out);
    case "revoke": {
      const { positionals } = parseOptions(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("keys revoke needs an id or prefix");
      const key = await rt.apiKeys.revoke(positionals[0], actor);
      return out.print(`Revoked ${key.prefix}… (${key.id}) at ${key.revokedAt}`);
    }
    case "roll": {
      const { values, positionals } = parseOptions(
        rest,
        { grace: { type: "string" }, json: { type: "boolean" } },
        1,
      );
      if (!positionals[0]) throw new UsageError("keys roll needs an id or prefix");
      const grace =
        values.grace === undefined
          ? DEFAULT_ROLL_GRACE_SECONDS
          : parseValue(DurationText.pipe(RollGraceSeconds), values.grace, "--grace (0 to 7d)");
      const key = await rt.apiKeys.roll(positionals[0], grace, actor);
      if (values.json) return out.print(issuedJson(key));
      out.print(
        `New key ${key.prefix}… (id ${key.id}); the old key ${grace === 0 ? "is revoked" : `keeps working for ${values.grace ?? durationText(grace)}`}.`,
      );
      out.print("");
      out.print(`  ${key.key}`);
      out.print("");
      return out.print("Store it now: the secret is shown only this once.");
    }
    case "scopes": {
      const { values, positionals } = parseOptions(
        rest,
        { scopes: { type: "string" }, json: { type: "boolean" } },
        1,
      );
      if (!positionals[0]) throw new UsageError("keys scopes needs an id or prefix");
      if (values.scopes === undefined) throw new UsageError("keys scopes needs --scopes");
      const scopes = parseValue(ApiKeyScopes, scopeList(values.scopes), "--scopes");
      const key = await rt.apiKeys.changeScopes(positionals[0], scopes, actor);
      if (values.json)
        return out.print(JSON.stringify({ id: key.id, prefix: key.prefix, scopes: key.scopes }));
      return out.print(
        `${key.prefix}… (${key.id}) now has the scopes ${key.scopes.join(", ")}; every server applies them within 5 s.`,
      );
    }
    case "unban": {
      const { positionals } = parseOptions(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("keys unban needs an id or prefix");
      const key = await rt.unbanApiKey(positionals[0], actor);
      return out.print(`Lifted the ban of ${key.prefix}… (${key.id})`);
    }
    default:
      throw new UsageError(
        sub
          ? `Unknown keys command: ${sub}`
          : "keys needs a command: create, list, revoke, roll, scopes, unban",
      );
  }
}
