/** The part of autocannon 8's programmatic API the benchmark uses (the package ships no types). */
declare module "autocannon" {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<
      RawRequest & {
        /** Builds the request from the connection's context; undefined starts the sequence over. */
        setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest | undefined;
        /** Sees each answer with the connection's context (which is emptied when the sequence starts over). */
        onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
      }
    >;
    /** Runs the load in this many worker threads (then no `response` events, and no function options). */
    workers?: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  interface Instance extends Promise<Result> {
    on(
      event: "response",
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
