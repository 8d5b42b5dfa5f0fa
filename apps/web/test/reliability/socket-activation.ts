/**
 * A supervisor that holds a listening socket across restarts of the instance serving it, as systemd does for a
 * `.socket` unit (socket activation, sd_listen_fds(3)): it binds the port once and starts each instance with the
 * socket as descriptor 3, `LISTEN_FDS=1` and `LISTEN_PID` set to the instance's own pid, in a process group of its
 * own. Node cannot hold a listening socket without accepting on it, so the holder is a few lines of Python (every
 * machine of this project has python3: node-gyp needs it).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import readline from "node:readline";

/**
 * Says `{"listening"}` once the socket listens, then reads one JSON command per line, `[argv, env, cwd]`, starts it
 * and says `{"pid"}`, and `{"exit", "code"}` when it ends.
 */
const HOLDER = `
import json, os, socket, subprocess, sys, threading
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(511)
os.dup2(s.fileno(), 3)
lock = threading.Lock()
def say(message):
    with lock:
        print(json.dumps(message), flush=True)
def watch(p):
    say({"exit": p.pid, "code": p.wait()})
say({"listening": True})
for line in sys.stdin:
    argv, env, cwd = json.loads(line)
    p = subprocess.Popen(["/bin/sh", "-c", 'export LISTEN_PID=$$; exec "$@"', "sh", *argv],
        env={**env, "LISTEN_FDS": "1"}, cwd=cwd, pass_fds=(3,), start_new_session=True,
        stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr)
    say({"pid": p.pid})
    threading.Thread(target=watch, args=(p,), daemon=True).start()
`;

/** One instance the holder started: its pid (also its process group) and its exit code once it exits. */
export interface ActivatedInstance {
  pid: number;
  exited: Promise<number>;
  /** Sends `signal` to the instance's whole process group, as a supervisor stopping a service does. */
  signalGroup(signal: NodeJS.Signals): void;
}

export interface SocketHolder {
  port: number;
  /** Starts `argv` in `cwd` with `env` on the held socket. @returns once it has a pid (not once it serves). */
  start(argv: string[], env: Record<string, string>, cwd: string): Promise<ActivatedInstance>;
  /** Closes the socket (ends the holder); instances still running keep their own descriptor. */
  close(): Promise<void>;
}

/**
 * Binds `port` of 127.0.0.1 in a holder process. @returns once the socket listens.
 * @throws when python3 is missing or the port cannot be bound.
 */
export async function holdSocket(port: number): Promise<SocketHolder> {
  const holder: ChildProcessWithoutNullStreams = spawn("python3", ["-c", HOLDER, String(port)]);
  const stderr: string[] = [];
  holder.stderr.on("data", (chunk: Buffer) => {
    stderr.push(chunk.toString());
    if (stderr.length > 200) stderr.shift();
  });
  const lines = readline.createInterface({ input: holder.stdout });
  const started: ((pid: number) => void)[] = [];
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    listening = resolve;
  });
  const exits = new Map<number, (code: number) => void>();
  const exitCodes = new Map<number, number>();
  lines.on("line", (line) => {
    const message = JSON.parse(line) as { listening?: boolean; pid?: number; exit?: number; code?: number };
    if (message.listening) listening();
    if (message.pid !== undefined) started.shift()?.(message.pid);
    if (message.exit !== undefined) {
      exitCodes.set(message.exit, message.code ?? -1);
      exits.get(message.exit)?.(message.code ?? -1);
    }
  });
  const ended = new Promise<number>((resolve) => holder.on("exit", (code) => resolve(code ?? -1)));
  await Promise.race([
    ready,
    ended.then(() => {
      throw new Error(`the socket holder ended: ${stderr.join("")}`);
    }),
  ]);
  return {
    port,
    start: async (argv, env, cwd) => {
      const pid = await new Promise<number>((resolve) => {
        started.push(resolve);
        holder.stdin.write(`${JSON.stringify([argv, env, cwd])}\n`);
      });
      const exited = new Promise<number>((resolve) => {
        const known = exitCodes.get(pid);
        if (known !== undefined) resolve(known);
        else exits.set(pid, resolve);
      });
      return {
        pid,
        exited,
        signalGroup: (signal) => {
          try {
            process.kill(-pid, signal);
          } catch {
            // Already gone.
          }
        },
      };
    },
    close: async () => {
      holder.stdin.end();
      holder.kill("SIGTERM");
      await ended;
    },
  };
}
