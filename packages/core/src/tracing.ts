/**
 * Client spans of core's calls to other services (docs/operations.md "Tracing"), through `@opentelemetry/api`
 * alone: without a registered SDK (tracing off) every call below is a no-op, and the process loads no SDK.
 */
import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

const tracer = trace.getTracer("@petstore/core");

/**
 * Runs `fn` inside a CLIENT span `name` with `attributes`, child of the active span, when that span records;
 * otherwise runs `fn` alone. Work outside a traced request (the background flushes, an untraced process) thus
 * makes no span and costs one look-up of the active span. A rejection of `fn` sets the span's error status and
 * `error.type` (the error's name), then is passed on.
 */
export function inChildSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return fn();
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, (span) => endWith(span, fn()));
}

/**
 * Runs `fn(span)` inside a new CLIENT span `name`, the root of a trace of its own (its work is not part of
 * whatever request happens to be active). The span ends when `fn` settles; a rejection marks it as failed.
 */
export function inRootSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes, root: true }, (span) =>
    endWith(span, fn(span)),
  );
}

/** Ends `span` when `work` settles, marking it failed on a rejection, which is passed on. */
function endWith<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failed(span, error);
      span.end();
      throw error;
    },
  );
}

function failed(span: Span, error: unknown): void {
  span.setAttribute("error.type", error instanceof Error ? error.name : "_OTHER");
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/** PostgreSQL spans, made by the Prisma client (`@petstore/db`, loaded on call). */
export { traceDatabaseQueries } from "@petstore/db";
