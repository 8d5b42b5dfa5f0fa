/**
 * The OpenTelemetry tracing SDK of the process (docs/operations.md "Tracing"). server.ts imports this module
 * dynamically, and only when tracing is configured (`Config.tracing`), so an instance without an OTLP endpoint
 * never loads the SDK, the exporter or Prisma's instrumentation (`traceDatabaseQueries`, loaded on call).
 *
 * `startTracing` registers, globally through `@opentelemetry/api`: the AsyncLocalStorage context manager (the
 * active span follows each request through its promises), the W3C Trace Context propagator (`traceparent`,
 * `tracestate`), and a tracer provider with the configured sampler whose spans a batch span processor exports
 * as OTLP/HTTP JSON to `tracesUrl` (the exporter itself reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and
 * _COMPRESSION). The processor exports every 5 s, in batches of up to 512 spans, and drops spans beyond 2,048 queued. Prisma's instrumentation adds the client's spans, among them
 * `prisma:client:db_query` per SQL statement (`db.query.text`).
 */

import type { Sampler, SamplingResult } from "@opentelemetry/sdk-trace";
import type { TracingConfig } from "@petstore/config";
import { traceDatabaseQueries } from "@petstore/core";

/** The running SDK. */
export interface Tracing {
  /** Exports the spans ended so far; resolves when the receiver answered (or the export failed). */
  forceFlush(): Promise<void>;
  /**
   * Exports what is left and unregisters everything `startTracing` registered. Resolves within `timeoutMs`
   * (default 2 000) even when the collector does not answer; spans not exported by then are lost.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * `sampler`, except that Prisma's spans (`prisma:*`) are dropped unless their parent is sampled: they join the
 * trace of a request or a webhook attempt, while the background work (webhook polling, housekeeping, usage
 * flushes) makes no trace of its own every few seconds.
 */
function onlyInTraces(
  sampler: Sampler,
  api: typeof import("@opentelemetry/api"),
  drop: SamplingResult["decision"],
): Sampler {
  return {
    shouldSample(context, traceId, name, kind, attributes, links) {
      if (name.startsWith("prisma:")) {
        const parent = api.trace.getSpanContext(context);
        if (!parent || !(parent.traceFlags & api.TraceFlags.SAMPLED)) return { decision: drop };
      }
      return sampler.shouldSample(context, traceId, name, kind, attributes, links);
    },
    toString: () => `OnlyInTraces{${sampler.toString()}}`,
  };
}

/** Starts tracing as `config` says. @returns the SDK's handle; throws only when a module of the SDK is missing. */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const [api, core, hooks, sdk, resources, exporter, semconv] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const ratio = new sdk.TraceIdRatioBasedSampler(config.sampler.ratio);
  const samplers = {
    always_on: () => new sdk.AlwaysOnSampler(),
    always_off: () => new sdk.AlwaysOffSampler(),
    traceidratio: () => ratio,
    parentbased_always_on: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    parentbased_always_off: () => new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() }),
    parentbased_traceidratio: () => new sdk.ParentBasedSampler({ root: ratio }),
  } as const;
  const provider = new sdk.TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES adds to the resource; the service name is OTEL_SERVICE_NAME (default `petstore`).
    resource: resources
      .defaultResource()
      .merge(resources.detectResources({ detectors: [resources.resourceAttributesEnvDetector] }))
      .merge(resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: config.serviceName })),
    sampler: onlyInTraces(samplers[config.sampler.name](), api, sdk.SamplingDecision.NOT_RECORD),
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter({ url: config.tracesUrl }) }),
    ],
  });
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  const stopDatabaseTracing = await traceDatabaseQueries(provider);

  return {
    forceFlush: () => provider.forceFlush(),
    async shutdown(timeoutMs = 2_000) {
      stopDatabaseTracing();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      api.trace.disable();
      api.propagation.disable();
      api.context.disable();
    },
  };
}
