/**
 * Spans of the Prisma client (docs/operations.md "Tracing"): `prisma:client:operation` per client call and
 * `prisma:client:db_query` per SQL statement sent through the driver adapter (`db.query.text`,
 * `db.system.name`), made by the client itself once Prisma's instrumentation (`@prisma/instrumentation`) has
 * installed its tracing helper. Loaded only by a process that traces.
 */
import type { TracerProvider } from "@opentelemetry/api";

/**
 * Makes every Prisma client of the process trace its calls with `tracerProvider`.
 * @returns a function that stops it again.
 */
export async function traceDatabaseQueries(tracerProvider: TracerProvider): Promise<() => void> {
  const { PrismaInstrumentation } = await import("@prisma/instrumentation");
  const instrumentation = new PrismaInstrumentation();
  instrumentation.setTracerProvider(tracerProvider);
  instrumentation.enable();
  traced++;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    instrumentation.disable();
    traced--;
  };
}

let traced = 0;

/** Whether the process traces its database calls: then every statement goes through Prisma (client.ts). */
export const tracingQueries = () => traced > 0;
