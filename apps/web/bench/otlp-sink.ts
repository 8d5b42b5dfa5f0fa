/**
 * The bench's OTLP/HTTP trace receiver (`npm run bench -- --tracing`), run as a child process so that taking the
 * traced server's exports does not take CPU from the load generator: a node:http server on 127.0.0.1 that reads
 * each POST to /v1/traces whole and answers 200 `{}` (the OTLP/HTTP success answer), counting the exports and
 * their bytes. Parent messages: `{report}` answers with `{ exports, bytes }` so far.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

let exports = 0;
let bytes = 0;

const server = http.createServer((req, res) => {
  req.on("data", (c: Buffer) => {
    bytes += c.length;
  });
  req.on("end", () => {
    exports++;
    res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on("message", (message: { report?: boolean }) => {
  if (message.report) process.send?.({ exports, bytes });
});
