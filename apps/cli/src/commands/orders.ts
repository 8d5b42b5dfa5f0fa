/**
 * `petstore orders list|complete|cancel` (docs/contract.md sections 1 "The store section" and 5): the store's
 * orders, newest first, and closing a placed one, audited with the operator as actor. Filters are validated with
 * the dashboard's `OrderSearch` schema.
 */
import { MAX_PAGE_SIZE, OrderRef, OrderSearch } from "@petstore/contracts";
import type { Runtime } from "@petstore/core";
import type { Output } from "../io.ts";
import { parseOptions, parseValue, UsageError } from "../usage.ts";

/** A decimal id as a number, or NaN (which the schema then refuses) for anything else. */
const decimal = (text: string | undefined) =>
  text !== undefined && /^\d+$/.test(text) ? Number(text) : text;

async function list(rt: Runtime, args: string[], out: Output) {
  const { values } = parseOptions(args, {
    status: { type: "string" },
    account: { type: "string" },
    pet: { type: "string" },
    json: { type: "boolean" },
  });
  const query = parseValue(
    OrderSearch,
    {
      page: 1,
      pageSize: MAX_PAGE_SIZE,
      ...(values.status ? { status: values.status } : {}),
      ...(values.account ? { accountId: values.account } : {}),
      ...(values.pet ? { petId: decimal(values.pet) } : {}),
    },
    "order filters",
    { accountId: "--account", petId: "--pet" },
  );
  const { rows, total, totalExact } = await rt.orders.search(query);
  if (total > rows.length)
    out.warn(
      `Showing the newest ${rows.length} of ${totalExact ? "" : "more than "}${total} orders: narrow them with --status, --account or --pet.`,
    );
  if (values.json) return out.print(JSON.stringify(rows));
  if (rows.length === 0) return out.print("No orders match.");
  out.table(
    rows.map((o) => ({
      id: o.id,
      status: o.status,
      animal: o.petName === null ? `${o.petId} (deleted)` : `${o.petId} ${o.petName}`,
      account: o.accountName ?? `key ${o.keyPrefix}…`,
      created: o.createdAt,
      "hold until": o.status === "placed" ? o.holdUntil : "",
      closed: o.closedAt ?? "",
    })),
  );
}

/** `orders complete|cancel <id>`: only a placed order; repeating the call that closed it answers the same. */
async function close(rt: Runtime, sub: "complete" | "cancel", args: string[], actor: string, out: Output) {
  const { values, positionals } = parseOptions(args, { json: { type: "boolean" } }, 1);
  if (!positionals[0]) throw new UsageError(`orders ${sub} needs an order id`);
  const { id } = parseValue(OrderRef, { id: decimal(positionals[0]) }, "<id>", { id: "<id>" });
  const order = sub === "complete" ? await rt.orders.complete(id, actor) : await rt.orders.cancel(id, actor);
  if (values.json) return out.print(JSON.stringify(order));
  out.print(
    sub === "complete"
      ? `Completed order ${order.id}: animal ${order.petId} is sold.`
      : `Cancelled order ${order.id}: animal ${order.petId} is available again.`,
  );
}

/** Runs `orders <sub> ...`. @throws UsageError for bad arguments. */
export async function ordersCommand(rt: Runtime, args: string[], actor: string, out: Output): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "list":
      return list(rt, rest, out);
    case "complete":
    case "cancel":
      return close(rt, sub, rest, actor, out);
    default:
      throw new UsageError(
        sub ? `Unknown orders command: ${sub}` : "orders needs a command: list, complete, cancel",
      );
  }
}
