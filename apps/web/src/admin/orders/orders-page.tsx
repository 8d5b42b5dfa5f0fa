"use client";
/**
 * Orders (staff and admins): every order of the store, newest first, filtered in the URL by status, account,
 * animal and days, found by id; a placed one completed or cancelled after confirming (docs/contract.md section 4).
 */
import { Select, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { AuditDays } from "@/admin/audit/audit-days";
import { PageHeader, RouteLink } from "@/ui/components/page";
import { OrderKey, OrdersView } from "@/ui/orders/orders-view";
import { useTRPC } from "@/ui/trpc";

export function OrdersPage() {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.orders.accounts.queryOptions());
  return (
    <>
      <PageHeader
        title="Orders"
        description="Orders API clients placed. A placed order holds its animal (pending) until it is completed, cancelled or its hold lapses."
      />
      <OrdersView
        scope="admin"
        filters={(query) => (
          <>
            <Select
              label="Account"
              placeholder="Any account"
              data={(accounts.data ?? []).map((a) => ({ value: a.id, label: a.name }))}
              value={query.view.account}
              onChange={(account) => query.change({ account })}
              searchable
              clearable
              nothingFoundMessage="No account by that name"
              w={{ base: "100%", xs: 220 }}
            />
            <AuditDays
              from={query.view.from}
              to={query.view.to}
              onChange={query.change}
              error={query.errors.range}
            />
          </>
        )}
        who={{
          header: "Placed by",
          cell: (o) =>
            o.accountId ? (
              <RouteLink href={`/admin/orders?account=${o.accountId}`} size="sm">
                {o.accountName}
              </RouteLink>
            ) : (
              <Text span size="sm">
                <OrderKey order={o} />
              </Text>
            ),
        }}
      />
    </>
  );
}
