/**
 * `Idempotency-Key` of createPet and createOrder (docs/contract.md section 1, "POST /v1/pets (createPet)"): the
 * header's schema, and a creation run through core's idempotency service.
 */
import { z } from "@hono/zod-openapi";
import { typeMessage } from "@petstore/contracts";
import type { Runtime, StoredResponse } from "@petstore/core";

const IDEMPOTENCY_KEY_RULE = "must be 1 to 255 printable ASCII characters";

/** The request header, documented and validated as the operation's `request.headers`. */
export const IdempotencyHeaders = z.object({
  "idempotency-key": z
    .string({ error: typeMessage(IDEMPOTENCY_KEY_RULE) })
    .min(1, { error: IDEMPOTENCY_KEY_RULE })
    .max(255, { error: IDEMPOTENCY_KEY_RULE })
    .regex(/^[\x20-\x7E]+$/, { error: IDEMPOTENCY_KEY_RULE })
    .optional()
    .meta({
      description:
        "Makes retries safe: the same key with the same body within 24 h replays the first response " +
        "(with `Idempotent-Replayed: true`) and creates nothing.",
    }),
});

type Tx = Parameters<Parameters<Runtime["idempotency"]["run"]>[1]>[0];

/**
 * Runs `create` once per API key, Idempotency-Key and body (`fingerprinted`, which names the operation for any
 * operation but createPet), or plainly without a key. @returns the answer and whether it is a replay.
 */
export async function runCreation(
  rt: Pick<Runtime, "idempotency">,
  scope: { apiKeyId: string; key: string | undefined; fingerprinted: unknown },
  create: (tx?: Tx) => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  if (!scope.key) return { response: await create(), replayed: false };
  return rt.idempotency.run({ apiKeyId: scope.apiKeyId, key: scope.key, body: scope.fingerprinted }, create);
}
