/**
 * The bench's webhook receiver, run as a child process of bench/webhooks.ts so that answering thousands of
 * deliveries a second does not take CPU from the load generator: a node:http server on 127.0.0.1 that answers
 * 204 at once and, per delivery, keeps its webhook-id and the time from the event (the body's `timestamp`,
 * taken by the database inside the change's statement) to its arrival here. Parent messages: `{reset}`
 * clears; `{report}` answers with the deliveries, the distinct ids and the latencies (ms) since the last reset.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

let ids: string[] = [];
let latencies: number[] = [];

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const arrived = Date.now();
    res.writeHead(204).end();
    try {
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
      latencies.push(arrived - Date.parse(timestamp));
      ids.push(String(req.headers["webhook-id"]));
    } catch {
      // Not a webhook body: not counted.
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on("message", (message: { reset?: boolean; report?: boolean }) => {
  if (message.reset) {
    ids = [];
    latencies = [];
  }
  if (message.report) process.send?.({ deliveries: ids.length, distinct: new Set(ids).size, latencies });
});
process.on("disconnect", () => process.exit(0));
