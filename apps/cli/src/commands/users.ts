/**
 * `petstore users create`: dashboard users (docs/contract.md sections 4 and 5). The password is read from
 * stdin. Validated with the same `UserCreate` schema as the dashboard's tRPC procedure.
 */
import { UserCreate } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("Password (then Enter, Ctrl-D): ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

export async function usersCommand(
  rt: Runtime,
  args: string[],
  actor: string,
  print: (line: string) => void,
): Promise<void> {
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
  const user = await rt.users.create(
    parseValue(UserCreate, { ...input, password: await readStdin() }, "user options", {
      password: "password (stdin)",
    }),
    actor,
  );
  if (values.json) return print(JSON.stringify({ id: user.id, email: user.email, role: user.role }));
  print(`Created ${user.role} ${user.email} (${user.id})`);
}
