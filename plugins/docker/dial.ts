// The Docker CLI's ssh transport (DOCKER_HOST=ssh://…), in gpucheck: every connection to an
// engine is one `ssh … host -- docker system dial-stdio`, whose stdin and stdout carry the HTTP
// bytes to the remote engine's socket. Through the host's ControlMaster a connection costs a
// channel, not a handshake. docker-modem takes the agent as is (its `agent` option is handed to
// http.request), so every dockerode call, attach's connection upgrade included, rides on it.
import { spawn, type ChildProcess } from "node:child_process";
import { Agent } from "node:http";
import { Duplex } from "node:stream";
import { killGroup } from "../../lib/core/proc.ts";

/** A connection that failed on the way to the engine; its message names the host and the reason. */
export class DialError extends Error {
  override name = "DialError";
}

/** Turns how the command ended into the message a failed connection carries. */
export type DescribeFailure = (code: number | null, signal: string | null, stderr: string) => string;

/** A child's stdio as a socket: what the http client reads and writes. */
class CommandConn extends Duplex {
  constructor(
    private readonly child: ChildProcess,
    describe: DescribeFailure,
    onFailure: (message: string) => void,
  ) {
    super();
    let stderr = "";
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => (stderr = (stderr + d).slice(-8192)));
    child.stdout!.on("data", (b: Buffer) => {
      if (!this.push(b)) child.stdout!.pause();
    });
    // a write after the command died fails with EPIPE: its exit, reported below, says why
    child.stdin!.on("error", () => {});
    child.on("error", (e) => this.destroy(e));
    // 'close' comes after stdout's end and the exit: the reason is known before the stream ends
    child.on("close", (code, signal) => {
      if (this.destroyed) return;
      if (code === 0) return void this.push(null);
      const message = describe(code, signal, stderr);
      onFailure(message);
      this.destroy(new DialError(message));
    });
  }

  override _read(): void {
    this.child.stdout!.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.child.stdin!.write(chunk, () => cb());
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.child.stdin!.end();
    cb();
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid) killGroup(this.child.pid, "SIGTERM");
    cb(err);
  }

  // what http clients call on a net.Socket; a pipe has nothing to set
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

export interface Dialer {
  /** for docker-modem's `agent` option */
  agent: Agent;
  /** why the last connection failed, for a container whose exit status never arrived */
  lastFailure(): string | undefined;
  /** ends every connection still open */
  close(): void;
}

/**
 * An http agent whose every connection is `argv` run here. Each runs in its own process group, so a
 * Ctrl-C at the terminal reaches gpucheck, not the connections it still needs to clean up.
 */
export function commandDialer(argv: readonly string[], describe: DescribeFailure): Dialer {
  const live = new Set<ChildProcess>();
  let failure: string | undefined;
  const agent = new Agent({ keepAlive: false });
  agent.createConnection = () => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], detached: true });
    live.add(child);
    child.on("close", () => live.delete(child));
    return new CommandConn(child, describe, (m) => (failure = m));
  };
  return {
    agent,
    lastFailure: () => failure,
    close: () => {
      for (const c of live) if (c.pid) killGroup(c.pid, "SIGTERM");
      agent.destroy();
    },
  };
}
