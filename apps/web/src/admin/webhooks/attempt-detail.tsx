"use client";
/**
 * One webhook attempt as the delivery log and a message's page show it, for the store's endpoints and a portal
 * member's alike: its status badge, the start of its answer on one line, and "Details", a dialog with everything
 * the log keeps of it: time, status, duration, why it failed, the whole response excerpt (at most 1 KiB) and the
 * request's headers as sent (webhook-id, webhook-timestamp, webhook-signature, content-type, user-agent, ...).
 */
import { Badge, Button, Code, Modal, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { RouterOutputs } from "@/server/trpc/router";
import { Field } from "../components/field";
import { formatDateTimeSeconds, formatNumber } from "../format";

export type Attempt = RouterOutputs["webhooks"]["deliveryLog"]["rows"][number];

/** A status badge (green 2xx, red otherwise) or "no answer". */
export function AttemptStatus({ attempt }: { attempt: Pick<Attempt, "succeeded" | "status"> }) {
  return (
    <Badge variant="light" color={attempt.succeeded ? "teal" : "red"}>
      {attempt.status ?? "no answer"}
    </Badge>
  );
}

/** The response excerpt, or why there was no answer, on one short line (the full text as its title). */
export function AttemptResponse({ attempt }: { attempt: Pick<Attempt, "error" | "responseExcerpt"> }) {
  const text = attempt.error ?? attempt.responseExcerpt ?? "";
  return text ? (
    <Text size="xs" ff="monospace" lineClamp={2} title={text} maw={320} style={{ overflowWrap: "anywhere" }}>
      {text}
    </Text>
  ) : (
    <Text size="xs" c="dimmed">
      (empty)
    </Text>
  );
}

/** The request's headers, one row each, in the order sent; or why there are none. */
function HeadersSent({ headers }: { headers: Attempt["requestHeaders"] }) {
  if (!headers)
    return (
      <Text size="sm" c="dimmed">
        Nothing was sent: the address was refused or the connection failed.
      </Text>
    );
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
      {/* Mounted only while open: the log shows this button on every row. */}
      {opened ? (
        <Modal opened onClose={close} title={`Attempt #${attempt.number}`} centered size="lg">
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
                  <Text size="sm" c="dimmed">
                    (empty)
                  </Text>
                )}
              </Field>
            ) : null}
            <Field label="Headers sent">
              <HeadersSent headers={attempt.requestHeaders} />
            </Field>
          </Stack>
        </Modal>
      ) : null}
    </>
  );
}
