/**
 * Database spans (docs/operations.md "Tracing"): Prisma's own (`@prisma/instrumentation`) for client calls, and a
 * `postgresql` CLIENT span per direct statement (`Database["queryRows"]`).
 */
import { SpanKind, SpanStatusCode, type Tracer, type TracerProvider, trace } from "@opentelemetry/api";

/**
 * Makes every Prisma client of the process trace its calls with `tracerProvider`.
 * @returns a function that stops it again.
 */
export async function traceDatabaseQueries(tracerProvider: TracerProvider): Promise<() => void> {
  const { PrismaInstrumentation } = await import("@prisma/instrumentation");
  const instrumentation = new PrismaInstrumentation();
  instrumentation.setTracerProvider(tracerProvider);
  instrumentation.enable();
  directTracer = tracerProvider.getTracer("@petstore/db");
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    instrumentation.disable();
    directTracer = undefined;
  };
}

let directTracer: Tracer | undefined;

/**
 * Runs the direct statement `text` through `run`, inside a CLIENT span named `postgresql` (OpenTelemetry's
 * database conventions: `db.system.name`, `db.query.text`) when the process traces and a recording span is
 * active; otherwise calls `run` alone. A rejection marks the span failed and is passed on.
 */
export function inQuerySpan<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!directTracer || !trace.getActiveSpan()?.isRecording()) return run();
  const attributes = { "db.system.name": "postgresql", "db.query.text": text };
  return directTracer.startActiveSpan("postgresql", { kind: SpanKind.CLIENT, attributes }, (span) =>
    run().then(
      (rows) => {
        span.end();
        return rows;
      },
      (error: unknown) => {
        span.setAttribute("error.type", error instanceof Error ? error.name : "_OTHER");
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
        span.end();
        throw error;
      },
    ),
  );
}
