/**
 * `petstore users create`: dashboard users (docs/contract.md sections 4 and 5). The password is read from
 * stdin. Validated with the same `UserCreate` schema as the dashboard's tRPC procedure.
 */
import { UserCreate } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { Output } from "../io.ts";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

export async function usersCommand(rt: Runtime, args: string[], actor: string, out: Output): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== "create")
    throw new UsageError(sub ? `Unknown users command: ${sub}` : "users needs a command: create");
  const { values } = parseOptions(rest, {
    email: { type: "string" },
    name: { type: "string" },
    role: { type: "string" },
    "password-stdin": { type: "boolean" },
    json: { type: "boolean" },
  });
  if (!values.email || !values.name || !values.role)
    throw new UsageError("users create needs --email, --name and --role");
  const input = { email: values.email, name: values.name, role: values.role };
  // Options first, so a bad one is reported before the password is asked for.
  parseValue(UserCreate.omit({ password: true }), input, "user options");
  const password = await out.readInput("Password (then Enter, Ctrl-D): ");
  const user = await rt.users.create(
    parseValue(UserCreate, { ...input, password }, "user options", { password: "password (stdin)" }),
    actor,
  );
  if (values.json) return out.print(JSON.stringify({ id: user.id, email: user.email, role: user.role }));
  out.print(`Created ${user.role} ${user.email} (${user.id})`);
}
