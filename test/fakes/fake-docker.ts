// A Docker engine in this process: an HTTP server on a unix socket (or a loopback TCP port) answering the part of the
// Engine API the docker platform uses through dockerode (version, image inspect, create,
// put_archive, attach, start, wait, stop, list by label, remove), so the platform's own client
// code runs unchanged against `unix://<socket>` or `tcp://127.0.0.N:<port>`. A "container" is a scratch root directory and a
// local process group: the workload archive is unpacked into the root, and paths under the
// container's /opt/gpucheck (Cmd, Env, WorkingDir) are rewritten into it. What it does not have:
// images (every image "exists", the command runs on this machine's Python), networks, GPUs,
// ulimits, pulls, and engine faults; dockerd and podman cover those in test/integration/.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { constants } from "node:os";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

const STAGE = "/opt/gpucheck";

interface Container {
  id: string;
  name: string;
  root: string;
  body: { Cmd: string[]; Env?: string[]; WorkingDir?: string; Labels?: Record<string, string> };
  proc?: ChildProcess;
  exitCode?: number;
  exited: Promise<number>;
  onExit: (code: number) => void;
  attached: ServerResponse[];
}

export class FakeDockerEngine {
  readonly url: string;
  private readonly containers = new Map<string, Container>();
  private readonly base: string;

  private constructor(
    private readonly server: Server,
    base: string,
    url: string,
  ) {
    this.base = base;
    this.url = url;
  }

  /**
   * On a unix socket, or with `tcp` on a TCP port of that loopback address (127.0.0.2, …): engines
   * on sockets are all node "localhost" to the platform, on distinct addresses each a node of its own.
   */
  static async start(opts: { tcp?: string } = {}): Promise<FakeDockerEngine> {
    const base = tempDir("gpucheck-fakedocker-");
    let engine: FakeDockerEngine | undefined;
    const server = createServer((req, res) => {
      engine!.handle(req, res).catch((err: Error) => reply(res, 500, { message: err.message }));
    });
    // dockerd keeps an idle client connection open; node's 5 s default would close sockets that
    // dockerode's agent is about to reuse, an ECONNRESET no real engine gives
    server.keepAliveTimeout = 0;
    const sock = join(base, "docker.sock");
    await new Promise<void>((resolve) => (opts.tcp ? server.listen(0, opts.tcp, resolve) : server.listen(sock, resolve)));
    const url = opts.tcp ? `tcp://${opts.tcp}:${(server.address() as AddressInfo).port}` : `unix://${sock}`;
    engine = new FakeDockerEngine(server, base, url);
    return engine;
  }

  /** every container not removed yet, running or not: a run must remove all it created */
  leftovers(): string[] {
    return [...this.containers.values()].map((c) => `container ${c.name} ${c.exitCode === undefined && c.proc ? "running" : "exited"}`);
  }

  async stop(): Promise<void> {
    for (const c of this.containers.values()) if (c.proc?.pid && c.exitCode === undefined) signalGroup(c.proc.pid, "SIGKILL");
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url!, "http://docker");
    const path = url.pathname.replace(/^\/v\d+\.\d+/, "");
    const m = /^\/containers\/([^/]+)(?:\/(\w+))?$/.exec(path);
    if (req.method === "GET" && path === "/version") return reply(res, 200, { Version: "fake", ApiVersion: "1.41", Components: [{ Name: "Engine", Version: "fake" }] });
    if (req.method === "GET" && /^\/images\/.+\/json$/.test(path)) return reply(res, 200, { Id: "sha256:fake" });
    if (req.method === "POST" && path === "/containers/create") return this.create(url.searchParams.get("name") ?? "", JSON.parse((await body(req)).toString()), res);
    if (req.method === "GET" && path === "/containers/json") return this.list(url, res);
    if (!m) return reply(res, 404, { message: `page not found: ${req.method} ${path}` });
    const c = this.containers.get(m[1]!) ?? [...this.containers.values()].find((x) => x.name === m[1]);
    if (!c) return reply(res, 404, { message: `No such container: ${m[1]}` });
    const action = `${req.method} ${m[2] ?? ""}`;
    if (action === "PUT archive") return this.putArchive(c, url.searchParams.get("path") ?? "/", await body(req), res);
    if (action === "POST attach") return this.attach(c, res);
    if (action === "POST start") return this.startContainer(c, res);
    if (action === "POST wait") return reply(res, 200, { StatusCode: await c.exited });
    if (action === "POST stop") return this.stopContainer(c, Number(url.searchParams.get("t") ?? 10), res);
    if (action === "DELETE ") return this.remove(c, res);
    return reply(res, 404, { message: `page not found: ${req.method} ${path}` });
  }

  private create(name: string, spec: Container["body"], res: ServerResponse): void {
    const id = randomBytes(32).toString("hex");
    const root = join(this.base, id.slice(0, 12));
    mkdirSync(root);
    let onExit: (code: number) => void = () => {};
    const exited = new Promise<number>((resolve) => (onExit = resolve));
    this.containers.set(id, { id, name, root, body: spec, exited, onExit, attached: [] });
    reply(res, 201, { Id: id, Warnings: [] });
  }

  /** without blocking the event loop: the engine serves other clients (a round's containers) meanwhile */
  private async putArchive(c: Container, path: string, tar: Buffer, res: ServerResponse): Promise<void> {
    const dir = join(c.root, path);
    mkdirSync(dir, { recursive: true });
    const tarProc = spawn("tar", ["-x", "-f", "-", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    tarProc.stderr.on("data", (d: Buffer) => (stderr += d));
    tarProc.stdin.end(tar);
    const code = await new Promise<number | null>((resolve) => tarProc.on("close", resolve));
    if (code !== 0) return reply(res, 500, { message: `extracting the archive: ${stderr}` });
    res.writeHead(200).end();
  }

  private attach(c: Container, res: ServerResponse): void {
    res.writeHead(200, { "Content-Type": "application/vnd.docker.raw-stream" });
    // the client returns the stream once it has the headers, and only then starts the container
    res.flushHeaders();
    c.attached.push(res);
  }

  private startContainer(c: Container, res: ServerResponse): void {
    if (c.proc) return void res.writeHead(304).end();
    const inRoot = (v: string) => (v === STAGE || v.startsWith(`${STAGE}/`) ? join(c.root, v) : v);
    const env = Object.fromEntries((c.body.Env ?? []).map((kv) => [kv.slice(0, kv.indexOf("=")), inRoot(kv.slice(kv.indexOf("=") + 1))]));
    const cwd = inRoot(c.body.WorkingDir || "/");
    mkdirSync(cwd, { recursive: true });
    const [cmd, ...args] = c.body.Cmd.map(inRoot);
    // a container's environment is the image's plus the body's: PATH is the image's part
    const proc = spawn(cmd!, args, { cwd, env: { PATH: "/usr/local/bin:/usr/bin:/bin", ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    c.proc = proc;
    const frame = (stream: 1 | 2) => (chunk: Buffer) => {
      const head = Buffer.alloc(8);
      head[0] = stream;
      head.writeUInt32BE(chunk.length, 4);
      for (const r of c.attached) r.write(Buffer.concat([head, chunk]));
    };
    proc.stdout!.on("data", frame(1));
    proc.stderr!.on("data", frame(2));
    proc.on("error", (err) => frame(2)(Buffer.from(`${err.message}\n`)));
    proc.on("close", (code, sig) => {
      // the container's PID namespace goes with its init: nothing it started survives
      if (proc.pid) signalGroup(proc.pid, "SIGKILL");
      c.exitCode = code ?? 128 + (sig ? constants.signals[sig] : 0);
      for (const r of c.attached.splice(0)) r.end();
      c.onExit(c.exitCode);
    });
    res.writeHead(204).end();
  }

  private async stopContainer(c: Container, graceS: number, res: ServerResponse): Promise<void> {
    if (!c.proc?.pid || c.exitCode !== undefined) return void res.writeHead(304).end();
    signalGroup(c.proc.pid, "SIGTERM");
    const kill = setTimeout(() => signalGroup(c.proc!.pid!, "SIGKILL"), graceS * 1000);
    await c.exited;
    clearTimeout(kill);
    res.writeHead(204).end();
  }

  private list(url: URL, res: ServerResponse): void {
    const filters = JSON.parse(url.searchParams.get("filters") ?? "{}") as { label?: string[] };
    const want = (filters.label ?? []).map((l) => l.split("="));
    const found = [...this.containers.values()].filter((c) => want.every(([k, v]) => c.body.Labels?.[k!] === v));
    reply(
      res,
      200,
      found.map((c) => ({ Id: c.id, Names: [`/${c.name}`], Labels: c.body.Labels ?? {}, State: c.exitCode === undefined && c.proc ? "running" : "exited" })),
    );
  }

  private async remove(c: Container, res: ServerResponse): Promise<void> {
    if (c.proc?.pid && c.exitCode === undefined) {
      signalGroup(c.proc.pid, "SIGKILL");
      await c.exited;
    }
    this.containers.delete(c.id);
    rmSync(c.root, { recursive: true, force: true });
    res.writeHead(204).end();
  }
}

function reply(res: ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(json));
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req
      .on("data", (d: Buffer) => parts.push(d))
      .on("end", () => resolve(Buffer.concat(parts)))
      .on("error", reject);
  });
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // the group is gone already
  }
}
