"use client";
/**
 * getPet's brownouts on the deprecated-callers page (docs/contract.md section 4, "Brownouts"): the windows that end
 * after 30 days ago with their state, scheduling one (a UTC start and a duration) and cancelling one.
 */
import { Button, Code, Group, Select, TextInput } from "@mantine/core";
import { BrownoutCreate } from "@petstore/contracts";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { RouterOutputs } from "@/server/trpc/router";
import { QueryTable } from "@/ui/components/data-table";
import { Hint, SectionTitle, StateBadge } from "@/ui/components/page";
import { ConfirmMutation, FormModal } from "@/ui/dialogs";
import { useNotifiedMutation } from "@/ui/feedback";
import { formatDateTime } from "@/ui/format";
import { useZodForm } from "@/ui/forms/use-zod-form";
import { useTRPC } from "@/ui/trpc";

type Brownout = RouterOutputs["apiKeys"]["brownouts"][number];

const STATE_COLORS: Record<Brownout["state"], string> = {
  scheduled: "blue",
  active: "orange",
  ended: "gray",
};

const DURATIONS = [
  { value: "15", label: "15 minutes" },
  { value: "60", label: "1 hour" },
  { value: "240", label: "4 hours" },
  { value: "1440", label: "24 hours" },
];

/** `2030-06-01 14:00` (UTC, as typed) as RFC 3339; anything else is passed on for the schema to refuse. */
const utcInstant = (text: string) => {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})$/.exec(text.trim());
  return m ? `${m[1]}T${m[2]}:00Z` : text.trim();
};

export function Brownouts() {
  const trpc = useTRPC();
  const brownouts = useQuery({ ...trpc.apiKeys.brownouts.queryOptions(), refetchInterval: 60_000 });
  const [open, setOpen] = useState<"schedule" | Brownout | null>(null);
  const close = () => setOpen(null);
  return (
    <>
      <Group justify="space-between" mt="xl" mb="xs">
        <SectionTitle>Brownouts</SectionTitle>
        <Button variant="default" onClick={() => setOpen("schedule")}>
          Schedule brownout
        </Button>
      </Group>
      <Hint mb="sm">
        During a brownout getPet answers 410 gone, exactly as after its sunset, so its callers notice before
        it is removed. GET /v1/me lists the upcoming ones to every key that called getPet in the last 30 days.
      </Hint>
      <QueryTable<Brownout>
        query={brownouts}
        errorTitle="Could not load the brownouts"
        empty={{ title: "No brownout", description: "No brownout of getPet is scheduled." }}
        label="Brownouts"
        rowKey={(b) => b.id}
        minWidth={720}
        columns={[
          { key: "operation", header: "Operation", cell: (b) => <Code>{b.operation}</Code> },
          { key: "startsAt", header: "Starts", title: true, cell: (b) => formatDateTime(b.startsAt) },
          { key: "endsAt", header: "Ends", cell: (b) => formatDateTime(b.endsAt) },
          {
            key: "state",
            header: "State",
            cell: (b) => <StateBadge color={STATE_COLORS[b.state]}>{b.state}</StateBadge>,
          },
          { key: "createdBy", header: "Scheduled by", cell: (b) => b.createdBy },
          {
            key: "actions",
            header: "Actions",
            cell: (b) =>
              b.state === "ended" ? null : (
                <Button
                  size="xs"
                  variant="light"
                  color="red"
                  aria-label={`Cancel the brownout starting ${formatDateTime(b.startsAt)}`}
                  onClick={() => setOpen(b)}
                >
                  Cancel
                </Button>
              ),
          },
        ]}
      />
      {open === "schedule" ? <ScheduleDialog onClose={close} /> : null}
      {open && open !== "schedule" ? (
        <ConfirmMutation
          options={trpc.apiKeys.cancelBrownout.mutationOptions()}
          input={{ id: open.id }}
          feedback={{
            invalidate: [trpc.apiKeys.brownouts.pathKey()],
            success: () => "The brownout was cancelled.",
            failure: "Could not cancel the brownout",
          }}
          onClose={close}
          title="Cancel this brownout?"
          message={
            open.state === "active"
              ? "It is running: getPet answers again within 5 seconds on every server."
              : "getPet will answer as usual during its window."
          }
          confirmLabel="Cancel brownout"
        />
      ) : null}
    </>
  );
}

function ScheduleDialog({ onClose }: { onClose(): void }) {
  const trpc = useTRPC();
  const form = useZodForm(BrownoutCreate, { startsAt: "", durationMinutes: "60" }, (v) => ({
    operation: "getPet",
    startsAt: utcInstant(v.startsAt),
    durationMinutes: Number(v.durationMinutes),
  }));
  const schedule = useNotifiedMutation(trpc.apiKeys.scheduleBrownout.mutationOptions(), {
    invalidate: [trpc.apiKeys.brownouts.pathKey()],
    success: (b) =>
      `getPet is browned out from ${formatDateTime(b.startsAt)} to ${formatDateTime(b.endsAt)}.`,
    failure: "Could not schedule the brownout",
    form,
    onDone: onClose,
  });
  return (
    <FormModal
      title="Schedule a brownout of getPet"
      onClose={onClose}
      form={form}
      mutation={schedule}
      submitLabel="Schedule"
    >
      <TextInput
        label="Starts at (UTC)"
        description="YYYY-MM-DD HH:MM, in UTC, before the sunset (2030-12-05)."
        placeholder="2030-06-01 14:00"
        {...form.field("startsAt")}
        data-autofocus
      />
      <Select label="Lasts" data={DURATIONS} allowDeselect={false} {...form.field("durationMinutes")} />
    </FormModal>
  );
}
