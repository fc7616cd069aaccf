// What the fault-lab tests measure on the hosts: small Python programs (sent over ssh on stdin, or
// run by srun) that move bytes or burn CPU, and a process's CPU time read from /proc, which this
// machine sees for every host (the hosts share its PID namespace).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { NetFaults } from "./fault-lab.ts";

/** Where a probe runs: a lab host over ssh, or a Slurm lab node as a job step. */
type Lab = Pick<NetFaults, "ssh">;

export const PYTHON = "/usr/bin/python3";

const TCP_RECEIVE = `
import json, socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("", int(sys.argv[1]))); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); n = 0; first = None
while True:
    b = c.recv(1 << 16)
    if not b: break
    first = first or time.monotonic(); n += len(b)
print(json.dumps({"bytes": n, "seconds": time.monotonic() - first}), flush=True)
`;
const TCP_SEND = `
import socket, sys
c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10); left = int(sys.argv[3])
while left > 0: left -= c.send(b"x" * min(left, 1 << 16))
c.close()
`;
// generous waits: at a load of 100 the sender's Python took over 5 s to start (CI saw 0 of 500
// delivered, the receiver long gone), and a sender can be descheduled mid-stream
const UDP_RECEIVE = `
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.bind(("", int(sys.argv[1]))); s.settimeout(60); print("ready", flush=True); n = 0
try:
    while True: s.recv(2048); n += 1; s.settimeout(2)  # done after 2 s without a datagram
except socket.timeout: pass
print(n, flush=True)
`;
const UDP_SEND = `
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[3])): s.sendto(b"x" * 64, (sys.argv[1], int(sys.argv[2]))); time.sleep(0.0003)
`;
/** Burns one CPU for argv[1] seconds: prints "pid <pid>" first, then its share of a CPU over that time. */
export const BUSY = `
import os, sys, time
print("pid", os.getpid(), flush=True)
t0, c0 = time.monotonic(), time.process_time()
while time.monotonic() - t0 < float(sys.argv[1]): pass
print("share", (time.process_time() - c0) / (time.monotonic() - t0), flush=True)
`;
/** Opens a TCP connection to argv[1]:argv[2] with a 2 s timeout; prints how long it took, or how it failed and when. */
export const CONNECT = `
import socket, sys, time
t0 = time.monotonic()
try: socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2); print("connected after %.3f s" % (time.monotonic() - t0))
except OSError as e: print("failed after %.1f s: %s" % (time.monotonic() - t0, e))
`;

/** stdout and exit code of a process; stdin, when given, is written and closed first. */
export function finish(p: ChildProcess, stdin?: string): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  p.stdout!.on("data", (d) => (out += d));
  p.stderr!.on("data", (d) => (err += d));
  if (stdin !== undefined) p.stdin!.end(stdin);
  return new Promise((resolve) => p.on("close", (code) => resolve({ code, out, err })));
}

/** The first stdout line of a process (rejects if it exits before writing one). */
export function firstLine(p: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    p.stdout!.on("data", (d) => {
      buf += d;
      if (buf.includes("\n")) resolve(buf.slice(0, buf.indexOf("\n")));
    });
    p.on("close", (code) => reject(new Error(`exited ${code} before a line: ${buf}`)));
  });
}

/** `program` run by the host's Python with `args` (the program goes on stdin, so nothing needs quoting). */
export const python = (lab: Lab, host: string, program: string, ...args: (string | number)[]) => {
  const p = lab.ssh(host, [PYTHON, "-", ...args].join(" "));
  p.stdin.end(program);
  return p;
};
const port = () => 20000 + Math.floor(Math.random() * 10000);

/** TCP throughput from host `from` to host `to` (by name), Mbit/s, as the receiver saw it. */
export async function tcpMbit(lab: Lab, from: string, to: string, bytes: number): Promise<number> {
  const p = port();
  const receiver = python(lab, to, TCP_RECEIVE, p);
  const done = finish(receiver);
  await firstLine(receiver);
  const sent = await finish(python(lab, from, TCP_SEND, to, p, bytes));
  if (sent.code !== 0) throw new Error(`sender on ${from}: ${sent.err}`);
  const r = JSON.parse((await done).out.split("\n")[1]!) as { bytes: number; seconds: number };
  if (r.bytes !== bytes) throw new Error(`${to} received ${r.bytes} of ${bytes} bytes`);
  return (r.bytes * 8) / r.seconds / 1e6;
}

/** How many of `count` UDP datagrams from `from` arrive at `to`. */
export async function udpDelivered(lab: Lab, from: string, to: string, count: number): Promise<number> {
  const p = port();
  const receiver = python(lab, to, UDP_RECEIVE, p);
  const done = finish(receiver);
  await firstLine(receiver);
  await finish(python(lab, from, UDP_SEND, to, p, count));
  return Number((await done).out.split("\n")[1]);
}

/** The CPU share a busy loop of `seconds` got on a host (0.5 = half of one CPU). */
export async function busyShare(p: ChildProcess): Promise<number> {
  const { out, err } = await finish(p);
  const m = /^share (\S+)$/m.exec(out);
  if (!m) throw new Error(`no share in ${JSON.stringify(out)} (stderr ${err})`);
  return Number(m[1]);
}

export const busyOnHost = (lab: Lab, host: string, seconds: number) => python(lab, host, BUSY, seconds);
export const busyOnNode = (node: string, seconds: number) => spawn("srun", ["-w", node, "-N1", "-n1", "--quiet", PYTHON, "-c", BUSY, String(seconds)]);

/** User + system CPU time of a process so far, in clock ticks (/proc/<pid>/stat fields 14 and 15). */
export function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return Number(fields[11]) + Number(fields[12]);
}
