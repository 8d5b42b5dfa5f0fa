/**
 * The worker thread of bench/floods.ts's floods from many addresses (plain JavaScript: a worker does not inherit
 * the bench's tsx loader). Sends `workerData.request` to 127.0.0.1:`port` from the loopback addresses in
 * `addresses` (each client socket bound to one, so that a server without TRUST_PROXY sees each as a client of
 * its own), either paced (`rate` requests a second in all, spread evenly over time and round-robin over the
 * addresses, whether or not earlier ones were answered: an open loop) or, with `connections`, as fast as that
 * many keep-alive connections from the first address go (a closed loop). `{n}` in the request's path or body is
 * replaced by the request's number. With `authorizations`, each request sends the next of them as its
 * Authorization header; with `forwardedFor`, each loopback address also sends an X-Forwarded-For address of its
 * own outside loopback (10.77.x.y), as a client behind a trusted proxy. Posts `{ sent, statusCodes, errors,
 * seconds }`.
 */
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const { port, addresses, rate, seconds, connections, request, authorizations, forwardedFor } = workerData;
/** The X-Forwarded-For address of each loopback address, by its index. */
const forwarded = new Map(addresses.map((a, i) => [a, `10.77.${Math.floor(i / 250)}.${1 + (i % 250)}`]));
// Sockets are pooled per local address (the agent's key includes it): a few per address when paced.
const agent = new http.Agent({ keepAlive: true, maxSockets: connections ?? 4 });
const statusCodes = {};
let errors = 0;
let sent = 0;

/** One request from `localAddress`; resolves when its answer has been read (or it failed). */
function send(localAddress) {
  const n = String(sent++);
  const body = request.body?.replaceAll("{n}", n);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        localAddress,
        agent,
        method: request.method,
        path: request.path.replaceAll("{n}", n),
        headers: {
          ...request.headers,
          ...(body ? { "content-length": Buffer.byteLength(body) } : {}),
          ...(authorizations ? { authorization: authorizations[Number(n) % authorizations.length] } : {}),
          ...(forwardedFor ? { "x-forwarded-for": forwarded.get(localAddress) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.once("end", () => {
          statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
          resolve();
        });
      },
    );
    req.once("error", () => {
      errors++;
      resolve();
    });
    req.end(body);
  });
}

const started = performance.now();
const end = started + seconds * 1000;
const inFlight = new Set();
if (connections) {
  const loop = async () => {
    while (performance.now() < end) await send(addresses[0]);
  };
  await Promise.all(Array.from({ length: connections }, loop));
} else {
  let next = 0;
  await new Promise((done) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (now >= end) {
        clearInterval(timer);
        done();
        return;
      }
      const due = Math.floor(((now - started) / 1000) * rate);
      while (sent < due) {
        const p = send(addresses[next++ % addresses.length]);
        inFlight.add(p);
        void p.then(() => inFlight.delete(p));
      }
    }, 2);
  });
  // Answers still coming (held refusals take a second): up to 3 s more.
  await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, 3000))]);
}
agent.destroy();
parentPort.postMessage({ sent, statusCodes, errors, seconds: (performance.now() - started) / 1000 });
