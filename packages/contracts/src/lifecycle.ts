/**
 * Deprecated operations and their brownouts (docs/contract.md section 1, "GET /v1/pets/{petId} (getPet,
 * deprecated)", and section 4, "Brownouts"): when each was deprecated and is removed, its successor, and the
 * windows admins schedule before the removal, during which it answers as after it.
 */
import { z } from "./zod.ts";

/** The operations the API deprecated, with their announced instants (RFC 9745 Deprecation, RFC 8594 Sunset). */
export const DEPRECATED_OPERATIONS = {
  getPet: {
    /** 2026-01-01T00:00:00Z, when the deprecation was announced. */
    deprecatedAt: new Date("2026-01-01T00:00:00Z"),
    /** 2030-12-05T00:00:00Z, the announced removal. */
    sunsetAt: new Date("2030-12-05T00:00:00Z"),
    /** The path of its successor (`Link: <…>; rel="successor-version"`), under the public base URL. */
    successor: "/v1/pets",
  },
} as const;

export const DeprecatedOperation = z.enum(["getPet"], { error: "must be a deprecated operation (getPet)" });
export type DeprecatedOperation = z.infer<typeof DeprecatedOperation>;

/** The shortest and longest brownout, in minutes. */
export const BROWNOUT_MINUTES = { min: 5, max: 24 * 60 } as const;

/**
 * A brownout to schedule: the operation, when it starts (RFC 3339) and how long it lasts. Whether it starts in the
 * future and ends before the sunset is the service's to say (it has the clock).
 */
export const BrownoutCreate = z.strictObject({
  operation: DeprecatedOperation.default("getPet"),
  startsAt: z.iso.datetime({ offset: true, error: "Use a date and time, e.g. 2026-12-01T14:00:00Z." }),
  durationMinutes: z
    .int({ error: "must be a whole number of minutes" })
    .min(BROWNOUT_MINUTES.min, { error: `must be at least ${BROWNOUT_MINUTES.min} minutes` })
    .max(BROWNOUT_MINUTES.max, { error: `must be at most ${BROWNOUT_MINUTES.max} minutes (a day)` }),
});
export type BrownoutCreate = z.infer<typeof BrownoutCreate>;

export const BrownoutRef = z.strictObject({ id: z.uuid({ error: "must be a brownout's id" }) });
export type BrownoutRef = z.infer<typeof BrownoutRef>;
