"use client";
/**
 * An audit entry's before and after, field by field, the changed fields marked and first; values as text (lists
 * joined, objects as compact JSON), a dash where a side does not record the field.
 */
import { Code, Table, Text } from "@mantine/core";
import { Hint, StateBadge } from "@/ui/components/page";

type Fields = Record<string, unknown>;

/** `value` as fields: an object as it is, anything else recorded (a list, a scalar) as the one field `value`. */
function fieldsOf(value: unknown): Fields | null {
  if (value === null || value === undefined) return null;
  return typeof value === "object" && !Array.isArray(value) ? (value as Fields) : { value };
}

function Value({ value, recorded }: { value: unknown; recorded: boolean }) {
  if (!recorded) return <Text c="dimmed">—</Text>;
  if (value === null) return <Text c="dimmed">none</Text>;
  if (typeof value === "string") return <Text style={{ wordBreak: "break-word" }}>{value}</Text>;
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null))
    return <Text style={{ wordBreak: "break-word" }}>{value.length ? value.join(", ") : "none"}</Text>;
  if (typeof value === "object")
    return (
      <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
        {JSON.stringify(value)}
      </Code>
    );
  return <Text>{String(value)}</Text>;
}

export function AuditChanges({ before, after }: { before: unknown; after: unknown }) {
  const b = fieldsOf(before);
  const a = fieldsOf(after);
  if (!b && !a) return <Hint>This entry records no values.</Hint>;
  const changed = (field: string) => JSON.stringify(b?.[field]) !== JSON.stringify(a?.[field]);
  const fields = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])].sort(
    (x, y) => Number(changed(y)) - Number(changed(x)),
  );
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table aria-label="Changes" verticalSpacing="xs" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="28%">Field</Table.Th>
            <Table.Th>Before</Table.Th>
            <Table.Th>After</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {fields.map((field) => (
            <Table.Tr key={field}>
              <Table.Th scope="row" fw={500}>
                {field}{" "}
                {b && a && changed(field) ? (
                  <StateBadge size="xs" color="blue">
                    changed
                  </StateBadge>
                ) : null}
              </Table.Th>
              <Table.Td>
                <Value value={b?.[field]} recorded={Boolean(b && field in b)} />
              </Table.Td>
              <Table.Td>
                <Value value={a?.[field]} recorded={Boolean(a && field in a)} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
