/**
 * The answer of `GET /v1/me` (getMe; docs/contract.md section 1, "GET /v1/me (getMe)"): the calling API key as
 * its holder may see it (display prefix, name, scopes, expiry: never the secret or its hash), its account, its plan with the
 * key's effective limits, and the key's rate-limit windows (minute, day and, with a quota, month) as counted for this
 * very request (section 3).
 */

import { PlanName } from "./limits.ts";
import { ApiKeyScope } from "./scopes.ts";
import { z } from "./zod.ts";

const count = () => z.int().min(0);

/** One fixed window after this request was counted: its limit, what is left, and when it starts over. */
export const RateLimitWindow = z
  .object({
    limit: z.int().min(1).meta({ description: "Requests allowed per window." }),
    remaining: count().meta({
      description: "Requests left in the current window, this one already counted.",
    }),
    resetsAt: z.iso.datetime().meta({
      description:
        "When the current window ends (RFC 3339, UTC): the next minute, 00:00 UTC for the day, or 00:00 UTC on the 1st for the month; the `X-RateLimit-Reset` of that window.",
    }),
  })
  .meta({ id: "RateLimitWindow" });
export type RateLimitWindow = z.infer<typeof RateLimitWindow>;

export const Me = z
  .object({
    key: z.object({
      prefix: z.string().min(1).meta({ description: "The key's first 12 characters, as lists show it." }),
      name: z.string().min(1).meta({ description: "The name its issuer gave the key." }),
      scopes: z.array(ApiKeyScope).min(1).meta({ description: "What the key may do." }),
      expiresAt: z.iso.datetime().nullable().meta({
        description: "When the key stops working (RFC 3339, UTC), or null when it does not expire.",
      }),
    }),
    account: z
      .object({
        id: z.uuid().meta({ description: "The account's id." }),
        name: z.string().min(1).meta({ description: "The account's name." }),
      })
      .nullable()
      .meta({
        description:
          "The consumer account that holds the key (its members manage it in the developer portal), or null for a key an admin issued outside any account.",
      }),
    plan: z.object({
      name: PlanName,
      limits: z
        .object({
          perMinute: z.int().min(1).meta({ description: "Requests per minute." }),
          perDay: z.int().min(1).meta({ description: "Requests per UTC day." }),
          perMonth: z.int().min(1).nullable().meta({
            description:
              "Requests per UTC calendar month (the monthly quota): the account's, else the plan's; null when there is none.",
          }),
        })
        .meta({
          description:
            "The key's effective limits: its own when it has custom ones (Enterprise), else its plan's.",
        }),
    }),
    rateLimit: z
      .object({
        minute: RateLimitWindow,
        day: RateLimitWindow,
        month: RateLimitWindow.nullable().meta({
          description:
            "The UTC calendar month's quota after this request (its progress); null without a quota.",
        }),
      })
      .nullable()
      .meta({
        description: "The key's windows after this request; null when the deployment limits nothing.",
      }),
  })
  .meta({ id: "Me" });
export type Me = z.infer<typeof Me>;
