/**
 * `petstore accounts create|list|suspend|resume`: consumer accounts (docs/contract.md sections 5 and 7).
 * Validated with the same `AccountCreate` schema as the dashboard's tRPC procedure; the owner's invitation link
 * is printed once, on the deployment's own origin (PUBLIC_BASE_URL, or the one its server recorded).
 */
import { ConfigError } from "@petstore/config";
import { AccountCreate, AccountId, AccountListFilter } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { Output } from "../io.ts";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

/**
 * Makes sure an invitation link names the deployment's origin: PUBLIC_BASE_URL, or the origin a server of the
 * deployment recorded at its start. With neither, production refuses (a link to the command's own default origin
 * would be dead) and staging warns on stderr.
 * @throws ConfigError naming PUBLIC_BASE_URL (exit code 2).
 */
function checkLinkOrigin(rt: Runtime, out: Output): void {
  if (rt.config.publicBaseUrlSource !== "default") return;
  if (rt.config.environment === "production")
    throw new ConfigError(
      "PUBLIC_BASE_URL",
      "must be set for accounts create: no server of this deployment has recorded its origin yet, and the invitation link is built on it",
    );
  out.warn(
    `petstore: PUBLIC_BASE_URL is not set and no server of this deployment has recorded its origin: the link below uses ${rt.config.publicBaseUrl}.`,
  );
}

async function create(rt: Runtime, args: string[], actor: string, out: Output) {
  const { values } = parseOptions(args, {
    name: { type: "string" },
    plan: { type: "string" },
    "owner-email": { type: "string" },
    json: { type: "boolean" },
  });
  if (!values.name || !values.plan || !values["owner-email"])
    throw new UsageError("accounts create needs --name, --plan and --owner-email");
  const input = parseValue(
    AccountCreate,
    { name: values.name, plan: values.plan, ownerEmail: values["owner-email"] },
    "account options",
  );
  checkLinkOrigin(rt, out);
  const account = await rt.accounts.create(input, actor);
  if (values.json) return out.print(JSON.stringify({ id: account.id, invitationUrl: account.invitationUrl }));
  out.print(`Created account ${input.name} (id ${account.id}, plan ${input.plan}).`);
  out.print(`Send ${input.ownerEmail} this invitation link (valid 72 h, single use, shown only this once):`);
  out.print("");
  out.print(`  ${account.invitationUrl}`);
}

async function list(rt: Runtime, args: string[], out: Output) {
  const { values } = parseOptions(args, { json: { type: "boolean" } });
  const accounts = await rt.accounts.list(AccountListFilter.parse({}));
  if (values.json) return out.print(JSON.stringify(accounts));
  if (accounts.length === 0)
    return out.print(
      `No accounts yet. Create one with: ${out.command} accounts create --name N --plan free --owner-email E`,
    );
  out.table(
    accounts.map((a) => ({
      id: a.id,
      name: a.name,
      plan: a.plan,
      state: a.state,
      "live keys": a.maxKeys === null ? `${a.keys}` : `${a.keys}/${a.maxKeys}`,
      members: a.members,
      "requests today": a.requestsToday,
      created: a.createdAt,
    })),
  );
}

/** `accounts suspend|resume <id>`: every key of the account answers 401 (or works again) within 5 s. */
async function setSuspended(rt: Runtime, sub: string, args: string[], actor: string, out: Output) {
  const { values, positionals } = parseOptions(args, { json: { type: "boolean" } }, 1);
  if (!positionals[0]) throw new UsageError(`accounts ${sub} needs an account id`);
  const id = parseValue(AccountId, positionals[0], "<id>");
  const account = await rt.accounts.setSuspended({ id, suspended: sub === "suspend" }, actor);
  if (values.json)
    return out.print(
      JSON.stringify({ id: account.id, state: account.state, suspendedAt: account.suspendedAt }),
    );
  out.print(
    account.state === "suspended"
      ? `Suspended ${account.name} (${account.id}): its keys answer 401 within 5 s on every instance.`
      : `Resumed ${account.name} (${account.id}): its keys work again within 5 s.`,
  );
}

/** Runs `accounts <sub> ...`. @throws UsageError for bad arguments. */
export async function accountsCommand(
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
    case "suspend":
    case "resume":
      return setSuspended(rt, sub, rest, actor, out);
    default:
      throw new UsageError(
        sub ? `Unknown accounts command: ${sub}` : "accounts needs a command: create, list, suspend, resume",
      );
  }
}
