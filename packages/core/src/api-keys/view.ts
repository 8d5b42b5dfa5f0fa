/**
 * How an API key is shown to admins (dashboard, CLI; docs/contract.md section 4): its state and a view
 * without the hash.
 * The secret itself is never part of a view.
 */
import type { PlanName } from "@petstore/contracts";
import type { ApiKey, Plan } from "@petstore/db";
import { DAY_MS } from "../utc-day.ts";
import { effectiveLimits, isLive, isRevoked } from "./policy.ts";

/** A key that expires sooner than this is shown as `expiring`. */
export const EXPIRING_SOON_MS = 7 * DAY_MS;

export type ApiKeyState = "active" | "expiring" | "expired" | "revoked" | "banned";

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  plan: PlanName;
  environment: "production" | "staging";
  state: ApiKeyState;
  perMinute: number | null;
  perDay: number | null;
  effectivePerMinute: number | null;
  effectivePerDay: number | null;
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  bannedUntil: string | null;
  rolledToId: string | null;
}

/** A freshly issued key: the only time `key` (the secret) is ever returned. */
export interface IssuedApiKey {
  id: string;
  key: string;
  prefix: string;
  plan: PlanName;
  expiresAt: string | null;
}

export type KeyWithPlan = ApiKey & { plan: Plan };

export function apiKeyState(
  key: Pick<ApiKey, "revokedAt" | "expiresAt" | "bannedUntil">,
  now: Date,
): ApiKeyState {
  if (!isLive(key, now)) return isRevoked(key, now) ? "revoked" : "expired";
  if (key.bannedUntil && key.bannedUntil > now) return "banned";
  if (key.expiresAt && key.expiresAt.getTime() - now.getTime() < EXPIRING_SOON_MS) return "expiring";
  return "active";
}

export function toView(key: KeyWithPlan, now: Date): ApiKeyView {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const limits = effectiveLimits(key);
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    plan: key.planName,
    environment: key.environment,
    state: apiKeyState(key, now),
    perMinute: key.perMinute,
    perDay: key.perDay,
    effectivePerMinute: limits.perMinute,
    effectivePerDay: limits.perDay,
    createdBy: key.createdBy,
    createdAt: key.createdAt.toISOString(),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    lastUsedAt: iso(key.lastUsedAt),
    bannedUntil: iso(key.bannedUntil),
    rolledToId: key.rolledToId,
  };
}

export const auditView = (key: ApiKey) => ({ ...key, hash: undefined });
