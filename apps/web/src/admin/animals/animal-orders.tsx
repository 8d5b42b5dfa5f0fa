"use client";
/** An animal's newest orders in its edit dialog, linking to the Orders page filtered by the animal. */
import { Code, Group, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { QueryTable } from "@/ui/components/data-table";
import { Hint, RouteLink } from "@/ui/components/page";
import { formatDate, formatNumber } from "@/ui/format";
import { type OrderRow, OrderStatusBadge } from "@/ui/orders/orders-view";
import { useTRPC } from "@/ui/trpc";

const SHOWN = 5;

export function AnimalOrders({ petId }: { petId: number }) {
  const trpc = useTRPC();
  const orders = useQuery(trpc.orders.search.queryOptions({ petId, page: 1, pageSize: SHOWN }));
  const all = `/admin/orders?pet=${petId}`;
  return (
    <Stack gap="xs" component="section" aria-label="Orders of this animal">
      <Group justify="space-between" align="baseline">
        <Text fw={500} size="sm">
          Orders
        </Text>
        {orders.data && orders.data.total > 0 ? (
          <RouteLink href={all} size="sm">
            {orders.data.total > SHOWN
              ? `All ${formatNumber(orders.data.total)} orders`
              : "See on the Orders page"}
          </RouteLink>
        ) : null}
      </Group>
      {orders.data?.total === 0 ? (
        <Hint size="xs">No API client has ordered this animal.</Hint>
      ) : (
        <QueryTable<OrderRow>
          query={orders}
          errorTitle="Could not load the animal's orders"
          label="Orders of this animal"
          rowKey={(o) => o.id}
          minWidth={380}
          columns={[
            {
              key: "id",
              header: "Order",
              title: true,
              cell: (o) => (
                <RouteLink href={`/admin/orders?id=${o.id}`} size="sm">
                  <Code>#{o.id}</Code>
                </RouteLink>
              ),
            },
            {
              key: "status",
              header: "Status",
              minWidth: 120,
              cell: (o) => <OrderStatusBadge status={o.status} />,
            },
            { key: "placed", header: "Placed", cell: (o) => formatDate(o.createdAt) },
            { key: "by", header: "Placed by", cell: (o) => o.accountName ?? o.keyName },
          ]}
        />
      )}
    </Stack>
  );
}
