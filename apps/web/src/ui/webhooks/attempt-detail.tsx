"use client";
/**
 * One webhook attempt as the delivery log and a message's page show it: its status, the start of its answer, and
 * "Details", a dialog with all the log keeps of it (the response excerpt, at most 1 KiB, and the headers sent).
 */
import { Button, Code, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { RouterOutputs } from "@/server/trpc/router";
import type { Column } from "../components/data-table";
import { Field, Hint, StateBadge } from "../components/page";
import { Dialog } from "../dialogs";
import { formatDateTimeSeconds, formatNumber } from "../format";

export type Attempt = RouterOutputs["webhooks"]["deliveryLog"]["rows"][number];

/** A status badge (green 2xx, red otherwise) or "no answer". */
function AttemptStatus({ attempt }: { attempt: Pick<Attempt, "succeeded" | "status"> }) {
  return <StateBadge color={attempt.succeeded ? "teal" : "red"}>{attempt.status ?? "no answer"}</StateBadge>;
}

/** The response excerpt, or why there was no answer, on one short line (the full text as its title). */
function AttemptResponse({ attempt }: { attempt: Pick<Attempt, "error" | "responseExcerpt"> }) {
  const text = attempt.error ?? attempt.responseExcerpt ?? "";
  return text ? (
    <Text size="xs" ff="monospace" lineClamp={2} title={text} maw={320} style={{ overflowWrap: "anywhere" }}>
      {text}
    </Text>
  ) : (
    <Hint size="xs">(empty)</Hint>
  );
}

/** The request's headers, one row each, in the order sent; or why there are none. */
function HeadersSent({ headers }: { headers: Attempt["requestHeaders"] }) {
  if (!headers) return <Hint>Nothing was sent: the address was refused or the connection failed.</Hint>;
  return (
    <Table withTableBorder verticalSpacing={4} aria-label="Headers sent" layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w="35%">Name</Table.Th>
          <Table.Th>Value</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {Object.entries(headers).map(([name, value]) => (
          <Table.Tr key={name}>
            <Table.Td>
              <Code>{name}</Code>
            </Table.Td>
            <Table.Td>
              <Text size="xs" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                {value}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** "Details" of one attempt: a button opening a dialog with what the log keeps of it. */
export function AttemptDetails({ attempt }: { attempt: Attempt }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button
        size="xs"
        variant="subtle"
        onClick={open}
        aria-label={`Details of attempt ${attempt.number} of ${attempt.messageId}`}
      >
        Details
      </Button>
      {opened ? (
        <Dialog onClose={close} title={`Attempt #${attempt.number}`} size="lg">
          <Stack gap="md">
            <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="md">
              <Field label="Started">{formatDateTimeSeconds(attempt.startedAt)}</Field>
              <Field label="Status">
                <AttemptStatus attempt={attempt} />
              </Field>
              <Field label="Duration">{`${formatNumber(attempt.durationMs)} ms`}</Field>
            </SimpleGrid>
            <Field label="Message">
              <Code>{attempt.eventType}</Code> <Code>{attempt.messageId}</Code>
            </Field>
            {attempt.error ? <Field label="Why it failed">{attempt.error}</Field> : null}
            {attempt.status !== null ? (
              <Field label="Response (first 1 KiB)">
                {attempt.responseExcerpt ? (
                  <Code block style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                    {attempt.responseExcerpt}
                  </Code>
                ) : (
                  <Hint>(empty)</Hint>
                )}
              </Field>
            ) : null}
            <Field label="Headers sent">
              <HeadersSent headers={attempt.requestHeaders} />
            </Field>
          </Stack>
        </Dialog>
      ) : null}
    </>
  );
}

type Logged = Pick<Attempt, "succeeded" | "status" | "durationMs" | "error" | "responseExcerpt">;

/** The columns every list of attempts shows: status, duration and the start of the response. */
export const ATTEMPT_COLUMNS: Column<Logged>[] = [
  { key: "status", header: "Status", cell: (a) => <AttemptStatus attempt={a} /> },
  { key: "duration", header: "Duration", align: "right", cell: (a) => `${formatNumber(a.durationMs)} ms` },
  { key: "response", header: "Response", cell: (a) => <AttemptResponse attempt={a} /> },
];
