// The fake's kubelet: runs each container of a bound pod as a REAL local subprocess, so logs and
// exit codes are real. A container sees what it would in a cluster, translated to this host:
//   - volumes are temp dirs (ConfigMap items written as files, emptyDir empty) and each mountPath
//     in the command, args and env values is rewritten to its dir (no mount namespace here);
//   - env is resolved as the kubelet does: fieldRef (spec.nodeName, metadata.*, annotations) and
//     $(VAR) expansion with $$ as the escape;
//   - cluster DNS: every pod lives at 127.0.0.1, so a MASTER_ADDR naming a pod or Service resolves
//     to it, and each owner (Job) gets its own MASTER_PORT, as pods with their own IPs would.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Obj } from "./store.ts";
import { tempDir } from "../tmp.ts";

type Container = { name: string; image: string; command?: string[]; args?: string[]; env?: EnvVar[]; volumeMounts?: Array<{ name: string; mountPath: string }> };
type EnvVar = { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } };
export type PodObj = Obj & {
  spec: { nodeName?: string; hostname?: string; subdomain?: string; containers: Container[]; initContainers?: Container[]; volumes?: Volume[] };
  status?: Record<string, unknown>;
};
type Volume = { name: string; configMap?: { name: string; items?: Array<{ key: string; path: string }> }; emptyDir?: unknown };

export interface LogLine {
  ts: string;
  text: string;
}

export class LogBuffer {
  lines: LogLine[] = [];
  done = false;
  private listeners = new Set<() => void>();
  private lastMs = 0;
  private sub = 0;

  push(text: string): void {
    const now = Date.now();
    this.sub = now === this.lastMs ? this.sub + 1 : 0;
    this.lastMs = now;
    // RFC 3339 with nanoseconds, as the kubelet writes them, strictly increasing
    const ts = `${new Date(now).toISOString().slice(0, -1)}${String(this.sub).padStart(6, "0")}Z`;
    this.lines.push({ ts, text });
    for (const l of this.listeners) l();
  }

  end(): void {
    this.done = true;
    for (const l of this.listeners) l();
  }

  subscribe(f: () => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }
}

/** Kubernetes' $(VAR) expansion: $$ → $, $(NAME) → its value when defined, anything else as is */
export function expand(s: string, vars: Record<string, string>): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== "$" || i + 1 >= s.length) {
      out += s[i];
      continue;
    }
    if (s[i + 1] === "$") {
      out += "$";
      i++;
    } else if (s[i + 1] === "(") {
      const close = s.indexOf(")", i + 2);
      const name = close > 0 ? s.slice(i + 2, close) : "";
      if (close > 0 && name in vars) {
        out += vars[name];
        i = close;
      } else out += "$";
    } else out += "$";
  }
  return out;
}

export function fieldValue(pod: PodObj, path: string): string {
  const m = /^metadata\.(annotations|labels)\['(.+)'\]$/.exec(path);
  if (m) return pod.metadata[m[1] as "labels"]?.[m[2]!] ?? "";
  const fields: Record<string, string | undefined> = {
    "metadata.name": pod.metadata.name,
    "metadata.namespace": pod.metadata.namespace,
    "metadata.uid": pod.metadata.uid,
    "spec.nodeName": pod.spec.nodeName,
    "status.podIP": "127.0.0.1",
    "status.hostIP": "127.0.0.1",
  };
  return fields[path] ?? "";
}

export { freePort } from "../../plugins/_shared/free-port.ts";

export interface ContainerRun {
  proc: ChildProcess;
  exited: Promise<number>;
}

export interface StartSpec {
  pod: PodObj;
  container: Container;
  dir: string;
  /** MASTER_ADDR names → 127.0.0.1 when they name something in the cluster */
  resolves(name: string): boolean;
  masterPort(port: string): Promise<string>;
  log: LogBuffer;
}

/** temp dirs for the pod's volumes: volume name → host dir */
export function materializeVolumes(pod: PodObj, dir: string, configMap: (name: string) => Record<string, string> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of pod.spec.volumes ?? []) {
    const d = join(dir, "volumes", v.name);
    mkdirSync(d, { recursive: true });
    if (v.configMap) {
      const data = configMap(v.configMap.name);
      if (!data) throw new Error(`configmap "${v.configMap.name}" not found`);
      const items = v.configMap.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const it of items) {
        if (!(it.key in data)) throw new Error(`configmap "${v.configMap.name}" has no key "${it.key}"`);
        mkdirSync(dirname(join(d, it.path)), { recursive: true });
        writeFileSync(join(d, it.path), data[it.key]!);
      }
    }
    out.set(v.name, d);
  }
  return out;
}

export async function startContainer(s: StartSpec, volumes: Map<string, string>): Promise<ContainerRun> {
  const { pod, container: c } = s;
  const mounts = (c.volumeMounts ?? []).map((m) => [m.mountPath, volumes.get(m.name)!] as const).sort((a, b) => b[0].length - a[0].length);
  const remap = (text: string) => mounts.reduce((t, [from, to]) => t.replace(new RegExp(`${from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=/|:|$|\\s|")`, "g"), to), text);
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    env[e.name] = e.valueFrom?.fieldRef ? fieldValue(pod, e.valueFrom.fieldRef.fieldPath) : expand(e.value ?? "", env);
  }
  if (env.MASTER_ADDR && s.resolves(env.MASTER_ADDR)) env.MASTER_ADDR = "127.0.0.1";
  if (env.MASTER_PORT) env.MASTER_PORT = await s.masterPort(env.MASTER_PORT);
  for (const k of Object.keys(env)) env[k] = remap(env[k]!);
  const argv = [...(c.command ?? []), ...(c.args ?? [])].map((a) => remap(expand(a, env)));
  if (!argv.length) throw new Error(`container ${c.name} has no command: the fake cannot run image entrypoints`);
  const proc = spawn(argv[0]!, argv.slice(1), {
    cwd: s.dir,
    detached: true,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: s.dir, HOSTNAME: pod.spec.hostname ?? pod.metadata.name, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pump = (stream: NodeJS.ReadableStream) => {
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop()!;
      for (const l of parts) s.log.push(l);
    });
    return new Promise<void>((r) => stream.on("end", () => (partial && s.log.push(partial), r())));
  };
  const pumped = Promise.all([pump(proc.stdout!), pump(proc.stderr!)]);
  const exited = new Promise<number>((resolve) => {
    proc.on("error", (e) => {
      s.log.push(`exec ${argv[0]}: ${e.message}`);
      resolve(128);
    });
    proc.on("close", (code, sig) => {
      void pumped.then(() => resolve(code ?? 128 + (sig ? (({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2 } as Record<string, number>)[sig] ?? 1) : 1)));
    });
  });
  return { proc, exited };
}

export function killGroup(proc: ChildProcess, sig: NodeJS.Signals): void {
  try {
    if (proc.pid) process.kill(-proc.pid, sig);
  } catch {
    // already gone
  }
}

export function podDir(): string {
  return tempDir("k8s-fake-pod-");
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
