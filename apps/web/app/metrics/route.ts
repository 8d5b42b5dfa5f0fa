/**
 * GET /metrics: Prometheus text format, bearer-protected by METRICS_TOKEN when set (docs/operations.md
 * "Metrics"). Outside /v1: not authenticated by API keys, not rate limited.
 */
import { metricsResponse } from "@/server/metrics/endpoint";

export const dynamic = "force-dynamic";

export const GET = metricsResponse;
