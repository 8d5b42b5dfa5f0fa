"use client";
/**
 * An orders list as the dashboard (every order, `scope` "admin": staff complete or cancel a placed one) and the
 * portal (the account's, "portal": members cancel) show it: the filters both offer, the paged table, and the
 * actions after a confirmation (docs/contract.md section 4 "Orders", section 7 "Orders in the portal").
 */
import { Code, Group, Select, Text, TextInput } from "@mantine/core";
import { ORDER_STATUSES, type OrderStatus } from "@petstore/contracts";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "../components/data-table";
import { StateBadge } from "../components/page";
import { ActionMenu, ConfirmMutation, type MenuAction } from "../dialogs";
import { formatDateTime } from "../format";
import { useTRPC } from "../trpc";
import { ORDERS_PAGE_SIZE, useOrdersQuery } from "./use-orders-query";

export type OrderRow = RouterOutputs["orders"]["search"]["rows"][number];

const ORDER_STATUS_LABELS: Record<OrderStatus, string> = {
  placed: "Placed",
  completed: "Completed",
  cancelled: "Cancelled",
  expired: "Expired",
};
const ORDER_STATUS_COLORS = {
  placed: "yellow",
  completed: "teal",
  cancelled: "gray",
  expired: "orange",
} as const;

const STATUS_FILTER = ORDER_STATUSES.map((s) => ({ value: s, label: ORDER_STATUS_LABELS[s] }));

/** An order's state as a badge. */
export const OrderStatusBadge = ({ status }: { status: OrderStatus }) => (
  <StateBadge color={ORDER_STATUS_COLORS[status]}>{ORDER_STATUS_LABELS[status]}</StateBadge>
);

/** The animal an order is for: its name and id, or the id of a deleted one. */
const OrderAnimal = ({ order }: { order: Pick<OrderRow, "petId" | "petName"> }) => (
  <>
    {order.petName ?? (
      <Text span c="dimmed" size="sm">
        deleted animal
      </Text>
    )}{" "}
    <Text span size="xs" c="dimmed">
      #{order.petId}
    </Text>
  </>
);

/** Until when a placed order holds its animal, or when a closed one closed. */
const holdOrClosed = (o: OrderRow) =>
  o.status === "placed" ? `held until ${formatDateTime(o.holdUntil)}` : formatDateTime(o.closedAt);

/** Complete (staff) and cancel, each after a confirmation naming what happens to the animal. */
function OrderActions({ order, scope }: { order: OrderRow; scope: "admin" | "portal" }) {
  const trpc = useTRPC();
  const procedures = scope === "admin" ? trpc.orders : trpc.portal.orders;
  const feedback = (success: string, failure: string) => ({
    invalidate: [
      procedures.pathKey(),
      ...(scope === "admin" ? [trpc.overview.pathKey(), trpc.pets.pathKey()] : []),
    ],
    success: () => success,
    failure,
  });
  const animal = order.petName ? `${order.petName} (#${order.petId})` : `animal #${order.petId}`;
  const input = { id: order.id };
  const actions: MenuAction[] = [
    {
      label: "Complete…",
      hidden: scope !== "admin",
      dialog: (close) => (
        <ConfirmMutation
          options={trpc.orders.complete.mutationOptions()}
          input={input}
          feedback={feedback(`Order ${order.id} was completed.`, "Could not complete the order")}
          onClose={close}
          title={`Complete order ${order.id}?`}
          message={`${animal} becomes sold. The API client that placed the order sees it completed.`}
          confirmLabel="Complete order"
          confirmColor="teal"
        />
      ),
    },
    {
      label: "Cancel…",
      danger: true,
      dialog: (close) => (
        <ConfirmMutation
          options={procedures.cancel.mutationOptions()}
          input={input}
          feedback={feedback(`Order ${order.id} was cancelled.`, "Could not cancel the order")}
          onClose={close}
          title={`Cancel order ${order.id}?`}
          message={`${animal} becomes available again, for anyone to order. This cannot be undone.`}
          confirmLabel="Cancel order"
        />
      ),
    },
  ];
  return <ActionMenu name={`Actions for order ${order.id}`} size="xs" actions={actions} />;
}

/**
 * The orders of `scope`, filtered in the URL by status, animal and id, plus `filters` (the dashboard's account and
 * days); `who` is the column of who placed an order (the dashboard: the account, the portal: the key).
 */
export function OrdersView({
  scope,
  filters,
  who,
}: {
  scope: "admin" | "portal";
  filters?(query: ReturnType<typeof useOrdersQuery>): ReactNode;
  who: { header: string; cell(order: OrderRow): ReactNode };
}) {
  const trpc = useTRPC();
  const query = useOrdersQuery();
  const { view, errors } = query;
  const procedure = scope === "admin" ? trpc.orders.search : trpc.portal.orders.search;
  const orders = useQuery({ ...procedure.queryOptions(query.input), placeholderData: keepPreviousData });
  return (
    <>
      <Group gap="sm" mb="md" align="flex-start" wrap="wrap">
        <Select
          label="Status"
          placeholder="Any status"
          data={STATUS_FILTER}
          value={view.status}
          onChange={(status) => query.change({ status: status as OrderStatus | null })}
          clearable
          w={{ base: "47%", xs: 170 }}
        />
        {filters?.(query)}
        <TextInput
          label="Animal id"
          placeholder="e.g. 42"
          inputMode="numeric"
          value={view.pet}
          onChange={(e) => query.change({ pet: e.currentTarget.value })}
          error={errors.pet}
          w={{ base: "47%", xs: 130 }}
        />
        <TextInput
          label="Find order by id"
          placeholder="e.g. 7"
          inputMode="numeric"
          value={view.id}
          onChange={(e) => query.change({ id: e.currentTarget.value })}
          error={errors.id}
          w={{ base: "47%", xs: 150 }}
        />
      </Group>
      <QueryTable<OrderRow>
        query={orders}
        errorTitle="Could not load the orders"
        empty={{
          title: query.filtered ? "No orders match" : "No orders yet",
          description: query.filtered
            ? "Try other filters."
            : "API clients place orders with POST /v1/store/orders; they appear here.",
        }}
        label="Orders table"
        rowKey={(o) => o.id}
        minWidth={820}
        columns={[
          {
            key: "id",
            header: "Order",
            title: true,
            cell: (o) => <Code>#{o.id}</Code>,
          },
          {
            key: "status",
            header: "Status",
            minWidth: 130,
            cell: (o) => <OrderStatusBadge status={o.status} />,
          },
          { key: "animal", header: "Animal", cell: (o) => <OrderAnimal order={o} /> },
          { key: "who", header: who.header, cell: who.cell },
          {
            key: "placed",
            header: "Placed",
            cell: (o) => <span style={{ whiteSpace: "nowrap" }}>{formatDateTime(o.createdAt)}</span>,
          },
          { key: "closed", header: "Hold or closed", cell: holdOrClosed },
        ]}
        actions={(o) => (o.status === "placed" ? <OrderActions order={o} scope={scope} /> : null)}
        pager={{ what: "Orders", page: query.input.page, pageSize: ORDERS_PAGE_SIZE, onPage: query.goTo }}
      />
    </>
  );
}

/** The key an order was placed with, as the portal names it. */
export const OrderKey = ({ order }: { order: OrderRow }) => (
  <>
    {order.keyName}{" "}
    <Text span size="xs" c="dimmed">
      <Code>{order.keyPrefix}…</Code>
    </Text>
  </>
);
