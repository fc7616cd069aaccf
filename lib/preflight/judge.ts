// One node's preflight result (the workload's GPUCHECK_RESULT from `preflight`) against what the
// suite's tests need. Anything the node could not tell is a problem, never a pass: a test that
// needs GPUs does not start on a node whose GPU count nobody could read.
import { taggedLines } from "../parsers/protocol.ts";
import type { PreflightNode, PreflightProblem, PreflightProbe, UnitStatus } from "../core/types.ts";
import type { TestNeeds } from "./needs.ts";

export const PYTHON_HINT = "pass --python /path/to/python3 or set defaults.python in the suite";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const strings = (v: unknown): string[] | null => (Array.isArray(v) ? v.map(String) : null);

export interface PreflightUnit {
  unit: string;
  hosts: string[];
  status: UnitStatus;
  message?: string;
  output: string;
  texts: string[];
  logs: string[];
}

/** "8 × NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB, NVIDIA A100-PCIE-40GB" */
export function models(names: string[]): string {
  const distinct = [...new Set(names)];
  return distinct.length === 1 ? `${names.length} × ${distinct[0]}` : names.join(", ");
}

const list = (tests: string[]) => tests.join(", ");
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

export function judgePreflightUnit(u: PreflightUnit, needs: TestNeeds[]): PreflightNode {
  const base = { node: u.unit, hosts: u.hosts, status: u.status, ...(u.message ? { message: u.message } : {}), logs: u.logs };
  // a node the platform set aside (drained, down, cordoned) gets no test either: it holds nothing up
  if (u.status === "skipped") return { ...base, probes: [], passed: true, problems: [] };
  const raw = [u.output, ...u.texts].flatMap((t) => taggedLines(t, "RESULT")).pop();
  if (u.status !== "completed" || !raw) {
    const why = u.status === "completed" ? "the preflight printed no GPUCHECK_RESULT line" : (u.message ?? u.status);
    // the launching interpreter itself missing reads as exit 127, or a failure that names it, on
    // every platform; an engine socket or a host that is missing is not the interpreter's fault
    const pythons = [...new Set(needs.map((n) => n.python))];
    const missingPython = /exit code 127|exited 127/i.test(why) || (/ENOENT|No such file|not found/i.test(why) && pythons.some((p) => why.includes(p)));
    const hint = missingPython ? `: ${PYTHON_HINT}` : "";
    return { ...base, probes: [], passed: false, problems: [{ message: `preflight could not run: ${why}${hint}`, tests: needs.map((n) => n.test) }] };
  }
  const probes: PreflightProbe[] = [];
  const problems: PreflightProblem[] = [];
  const problem = (message: string, tests: TestNeeds[]) => problems.push({ message, tests: tests.map((n) => n.test) });
  const interpreters = obj(raw.interpreters);
  const smi = obj(raw.nvidia_smi);
  const smiGpus = strings(smi.gpus);
  const smiError = str(smi.error) ?? "no answer";
  const smiText = smiGpus
    ? smiGpus.length
      ? `nvidia-smi lists ${models(smiGpus)}`
      : "nvidia-smi lists no GPU"
    : smiError.startsWith("nvidia-smi")
      ? smiError
      : `nvidia-smi: ${smiError}`;

  const byPython = new Map<string, TestNeeds[]>();
  for (const n of needs) byPython.set(n.python, [...(byPython.get(n.python) ?? []), n]);
  for (const [python, users] of byPython) {
    const p = obj(interpreters[python]);
    const names = list(users.map((n) => n.test));
    const error = str(p.error);
    if (error || !(python in interpreters)) {
      const why = error ?? `the preflight did not report ${python}`;
      probes.push({ probe: "python", python, value: null, reason: why });
      problem(`${why} (needed by ${names}): ${PYTHON_HINT}`, users);
      continue;
    }
    const version = str(p.version);
    probes.push({ probe: "python", python, value: version, detail: str(p.executable) ?? python, ...(version ? {} : { reason: "not reported" }) });
    const torch = str(p.torch);
    const torchErr = str(p.torch_error);
    const cudaBuild = str(p.torch_cuda);
    probes.push(
      torch
        ? { probe: "torch", python, value: torch, detail: cudaBuild ? `CUDA ${cudaBuild}` : "built without CUDA" }
        : { probe: "torch", python, value: null, reason: torchErr ?? "not reported" },
    );
    const count = typeof p.cuda_device_count === "number" ? p.cuda_device_count : null;
    const devices = strings(p.cuda_devices) ?? [];
    if (torch) {
      probes.push(
        count === null
          ? { probe: "torch.cuda.device_count", python, value: null, reason: str(p.cuda_error) ?? "not reported" }
          : { probe: "torch.cuda.device_count", python, value: count, ...(devices.length ? { detail: models(devices) } : {}) },
      );
      const nccl = p.nccl_available;
      probes.push(
        typeof nccl === "boolean"
          ? { probe: "NCCL", python, value: nccl ? (str(p.nccl_version) ?? true) : false }
          : { probe: "NCCL", python, value: null, reason: str(p.nccl_error) ?? "not reported" },
      );
    }

    const needTorch = users.filter((n) => n.torch);
    if (needTorch.length && !torch) {
      problem(`PyTorch is not installed for ${python} (${torchErr ?? "torch did not import"}), needed by ${list(needTorch.map((n) => n.test))}: ${PYTHON_HINT}`, needTorch);
      continue;
    }
    const short = users.filter((n) => n.gpuSource === "torch" && n.torch && n.gpus > 0 && (count === null || count < n.gpus));
    if (short.length) {
      const seen =
        count === null
          ? `the GPUs torch ${torch} sees could not be counted (${str(p.cuda_error) ?? "not reported"})`
          : `${plural(count, "GPU")} visible to torch ${torch}${count ? ` (${models(devices)})` : cudaBuild ? "" : " (built without CUDA)"}`;
      problem(`${seen}, ${smiText}: ${gpuDemand(short)}`, short);
    }
    const needNccl = users.filter((n) => n.nccl);
    if (needNccl.length && p.nccl_available !== true) {
      const why = typeof p.nccl_available === "boolean" ? "torch.distributed.is_nccl_available() is False" : `it could not be queried: ${str(p.nccl_error) ?? "not reported"}`;
      problem(`NCCL is not available in torch ${torch} (${why}), needed by ${list(needNccl.map((n) => n.test))} (backend nccl)`, needNccl);
    }
  }

  probes.push(
    smiGpus
      ? { probe: "nvidia-smi -L", value: smiGpus.length, ...(smiGpus.length ? { detail: models(smiGpus) } : {}) }
      : { probe: "nvidia-smi -L", value: null, reason: str(smi.error) ?? "the node gave no answer" },
  );

  // nccl-tests needs no torch: its GPUs are what nvidia-smi lists
  const binaryShort = needs.filter((n) => n.gpuSource === "nvidia-smi" && n.gpus > 0 && (smiGpus === null || smiGpus.length < n.gpus));
  if (binaryShort.length) {
    const seen = smiGpus ? `${plural(smiGpus.length, "GPU")} listed by nvidia-smi${smiGpus.length ? ` (${models(smiGpus)})` : ""}` : `the GPUs could not be counted (${smiText})`;
    problem(`${seen}: ${gpuDemand(binaryShort)}`, binaryShort);
  }

  const tools = obj(raw.tools);
  const toolUsers = new Map<string, TestNeeds[]>();
  for (const n of needs) for (const t of n.tools) toolUsers.set(t, [...(toolUsers.get(t) ?? []), n]);
  for (const [spec, users] of toolUsers) {
    const t = obj(tools[spec]);
    const path = str(t.path);
    const name = toolName(spec);
    if (path) probes.push({ probe: `tool ${name}`, value: true, detail: path });
    else {
      const why = str(t.error) ?? `${name} was not looked for`;
      // looked for and absent: a measured "no", with where it was looked for
      probes.push({ probe: `tool ${name}`, value: false, detail: why });
      problem(`${why}, needed by ${list(users.map((n) => n.test))}`, users);
    }
  }
  return { ...base, probes, passed: problems.length === 0, problems };
}

/** "gpusPerNode 8 needed by a, b; 4 by c" */
function gpuDemand(short: TestNeeds[]): string {
  const byCount = new Map<number, string[]>();
  for (const n of [...short].sort((a, b) => b.gpus - a.gpus)) byCount.set(n.gpus, [...(byCount.get(n.gpus) ?? []), n.test]);
  return `gpusPerNode ${[...byCount].map(([k, tests]) => `${k} needed by ${list(tests)}`).join("; ")}`;
}

/** `nccl-tests:all_reduce:/opt/x` → all_reduce_perf */
function toolName(spec: string): string {
  return spec.startsWith("nccl-tests:") ? `${spec.split(":")[1]}_perf` : spec;
}
