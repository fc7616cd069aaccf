// A node's preflight answer against what the tests need: every gap is one exact line naming the
// node's finding and the tests; whatever the node could not tell is a problem, never a pass.
import { describe, expect, test } from "bun:test";
import { judgePreflightUnit, type PreflightUnit } from "../../lib/preflight/judge.ts";
import { needsOf, preflightInputs, type TestNeeds } from "../../lib/preflight/needs.ts";
import { preflightPassed, preflightSkipReason, preflightTest } from "../../lib/preflight/run.ts";
import { preflightLines } from "../../lib/report/preflight-text.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import type { PlannedTest } from "../../lib/core/types.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";

const PY = "/opt/venv/bin/python3";
const HINT = "pass --python /path/to/python3 or set defaults.python in the suite";
const H100 = "NVIDIA H100 80GB HBM3";

const need = (over: Partial<TestNeeds>): TestNeeds => ({ test: "t", python: PY, torch: true, gpus: 8, gpuSource: "torch", nccl: true, tools: [], ...over });

function gpuNode(gpus: number, over: Record<string, unknown> = {}) {
  return {
    executable: PY,
    version: "3.10.12",
    torch: "2.5.1+cu124",
    torch_cuda: "12.4",
    cuda_available: gpus > 0,
    cuda_device_count: gpus,
    cuda_devices: Array(gpus).fill(H100),
    nccl_available: true,
    nccl_version: "2.21.5",
    ...over,
  };
}

function unit(result: unknown, over: Partial<PreflightUnit> = {}): PreflightUnit {
  const output = result === undefined ? "" : `[gpu-07 rank 0] GPUCHECK_RESULT ${JSON.stringify(result)}\n`;
  return { unit: "gpu-07", hosts: ["gpu-07"], status: "completed", output, texts: [], logs: ["preflight/gpu-07/rank-0.log"], ...over };
}

const answer = (python: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({
  hostname: "gpu-07",
  interpreters: { [PY]: python },
  nvidia_smi: { gpus: Array(8).fill(H100) },
  tools: {},
  ...rest,
});
const problems = (u: PreflightUnit, needs: TestNeeds[]) => judgePreflightUnit(u, needs).problems.map((p) => p.message);

describe("judgePreflightUnit", () => {
  test("a node with what every test needs passes, with each probe's value", () => {
    const n = judgePreflightUnit(unit(answer(gpuNode(8))), [need({ test: "allreduce" })]);
    expect(n).toEqual({
      node: "gpu-07",
      hosts: ["gpu-07"],
      status: "completed",
      logs: ["preflight/gpu-07/rank-0.log"],
      probes: [
        { probe: "python", python: PY, value: "3.10.12", detail: PY },
        { probe: "torch", python: PY, value: "2.5.1+cu124", detail: "CUDA 12.4" },
        { probe: "torch.cuda.device_count", python: PY, value: 8, detail: `8 × ${H100}` },
        { probe: "NCCL", python: PY, value: "2.21.5" },
        { probe: "nvidia-smi -L", value: 8, detail: `8 × ${H100}` },
      ],
      passed: true,
      problems: [],
    });
  });

  test("torch missing names the interpreter, the import error, the tests and the fix", () => {
    const u = unit(answer({ executable: PY, version: "3.10.12", torch_error: "ModuleNotFoundError: No module named 'torch'" }));
    expect(problems(u, [need({ test: "allreduce" }), need({ test: "inventory", torch: false, gpus: 0, nccl: false }), need({ test: "resnet" })])).toEqual([
      `PyTorch is not installed for ${PY} (ModuleNotFoundError: No module named 'torch'), needed by allreduce, resnet: ${HINT}`,
    ]);
    // inventory alone needs no torch
    expect(problems(u, [need({ test: "inventory", torch: false, gpus: 0, nccl: false })])).toEqual([]);
  });

  test("an interpreter that could not be run is named with the fix", () => {
    const u = unit(answer({ error: "/opt/venv/bin/python3 could not be run: No such file or directory" }));
    expect(problems(u, [need({ test: "allreduce" })])).toEqual([`/opt/venv/bin/python3 could not be run: No such file or directory (needed by allreduce): ${HINT}`]);
    expect(problems(unit({ hostname: "gpu-07", interpreters: {}, nvidia_smi: {}, tools: {} }), [need({ test: "allreduce" })])).toEqual([
      `the preflight did not report ${PY} (needed by allreduce): ${HINT}`,
    ]);
  });

  test("fewer GPUs than gpusPerNode names the count, the model, what nvidia-smi lists and each test's need", () => {
    const u = unit(answer(gpuNode(7)));
    expect(problems(u, [need({ test: "allreduce" }), need({ test: "resnet", gpus: 4 }), need({ test: "big", gpus: 8 })])).toEqual([
      `7 GPUs visible to torch 2.5.1+cu124 (7 × ${H100}), nvidia-smi lists 8 × ${H100}: gpusPerNode 8 needed by allreduce, big`,
    ]);
    const cpu = unit(answer(gpuNode(0, { torch: "1.13.1+cpu", torch_cuda: null, nccl_available: false }), { nvidia_smi: { gpus: null, error: "nvidia-smi not found" } }));
    expect(problems(cpu, [need({ test: "allreduce", nccl: false })])).toEqual([
      "0 GPUs visible to torch 1.13.1+cpu (built without CUDA), nvidia-smi not found: gpusPerNode 8 needed by allreduce",
    ]);
    // a CUDA build that sees nothing, on a node whose driver lists GPUs: CUDA_VISIBLE_DEVICES or a container without them
    const hidden = unit(answer(gpuNode(0)));
    expect(problems(hidden, [need({ test: "allreduce", nccl: false })])).toEqual([
      `0 GPUs visible to torch 2.5.1+cu124, nvidia-smi lists 8 × ${H100}: gpusPerNode 8 needed by allreduce`,
    ]);
  });

  test("GPUs nobody could count are a problem, never a pass", () => {
    const u = unit(
      answer(gpuNode(8, { cuda_device_count: undefined, cuda_error: "RuntimeError: CUDA driver initialization failed" }), {
        nvidia_smi: { gpus: null, error: "nvidia-smi -L timed out after 20s" },
      }),
    );
    expect(problems(u, [need({ test: "allreduce", nccl: false })])).toEqual([
      "the GPUs torch 2.5.1+cu124 sees could not be counted (RuntimeError: CUDA driver initialization failed), nvidia-smi -L timed out after 20s: gpusPerNode 8 needed by allreduce",
    ]);
    expect(judgePreflightUnit(u, [need({})]).probes[2]).toEqual({
      probe: "torch.cuda.device_count",
      python: PY,
      value: null,
      reason: "RuntimeError: CUDA driver initialization failed",
    });
  });

  test("NCCL missing or unknown fails the tests on backend nccl only", () => {
    const off = unit(answer(gpuNode(8, { nccl_available: false, nccl_version: undefined })));
    expect(problems(off, [need({ test: "allreduce" }), need({ test: "gloo", nccl: false })])).toEqual([
      "NCCL is not available in torch 2.5.1+cu124 (torch.distributed.is_nccl_available() is False), needed by allreduce (backend nccl)",
    ]);
    const unknown = unit(answer(gpuNode(8, { nccl_available: undefined, nccl_error: "ImportError: libnccl.so.2: cannot open shared object file" })));
    expect(problems(unknown, [need({ test: "allreduce" })])).toEqual([
      "NCCL is not available in torch 2.5.1+cu124 (it could not be queried: ImportError: libnccl.so.2: cannot open shared object file), needed by allreduce (backend nccl)",
    ]);
  });

  test("a missing nccl-tests binary names the binary and the tests; its GPUs are what nvidia-smi lists", () => {
    const tool = "nccl-tests:all_reduce";
    const binaryTest = need({ test: "nccl-allreduce", torch: false, nccl: false, gpuSource: "nvidia-smi", tools: [tool] });
    const missing = "nccl-tests binary all_reduce_perf not found on PATH (build NVIDIA/nccl-tests with MPI=1, or use --impl workload)";
    const u = unit(
      answer({ executable: PY, version: "3.10.12", torch_error: "ModuleNotFoundError: No module named 'torch'" }, { tools: { [tool]: { path: null, error: missing } } }),
    );
    // a torch-less image is fine for nccl-tests: only the binary is missing
    expect(problems(u, [binaryTest])).toEqual([`${missing}, needed by nccl-allreduce`]);
    expect(judgePreflightUnit(u, [binaryTest]).probes).toContainEqual({ probe: "tool all_reduce_perf", value: false, detail: missing });
    const few = unit(answer(gpuNode(8), { nvidia_smi: { gpus: [H100, H100] }, tools: { [tool]: { path: "/opt/nccl-tests/build/all_reduce_perf" } } }));
    expect(problems(few, [binaryTest])).toEqual([`2 GPUs listed by nvidia-smi (2 × ${H100}): gpusPerNode 8 needed by nccl-allreduce`]);
    const blind = unit(answer(gpuNode(8), { nvidia_smi: { gpus: null, error: "nvidia-smi not found" }, tools: { [tool]: { path: "/x/all_reduce_perf" } } }));
    expect(problems(blind, [binaryTest])).toEqual(["the GPUs could not be counted (nvidia-smi not found): gpusPerNode 8 needed by nccl-allreduce"]);
  });

  test("a node that could not run preflight, or printed no result, fails every test", () => {
    const launch = judgePreflightUnit(unit(undefined, { status: "infra", message: "could not launch: /nonexistent/python3: command not found" }), [
      need({ test: "a", python: "/nonexistent/python3" }),
      need({ test: "b", python: "/nonexistent/python3" }),
    ]);
    expect(launch.problems).toEqual([{ message: `preflight could not run: could not launch: /nonexistent/python3: command not found: ${HINT}`, tests: ["a", "b"] }]);
    expect(launch.probes).toEqual([]);
    const ssh = judgePreflightUnit(unit(undefined, { status: "infra", message: "host gpu-07: ssh: connect to host gpu-07 port 22: Connection refused" }), [need({ test: "a" })]);
    expect(ssh.problems[0]!.message).toBe("preflight could not run: host gpu-07: ssh: connect to host gpu-07 port 22: Connection refused");
    // a missing engine socket is not the interpreter's fault: no hint to pass --python
    const engine = judgePreflightUnit(unit(undefined, { status: "infra", message: "docker engine unix:///nonexistent.sock: ENOENT" }), [need({ test: "a" })]);
    expect(engine.problems[0]!.message).toBe("preflight could not run: docker engine unix:///nonexistent.sock: ENOENT");
    const exit127 = judgePreflightUnit(unit(undefined, { status: "infra", message: "rank 0 exited 127" }), [need({ test: "a" })]);
    expect(exit127.problems[0]!.message).toBe(`preflight could not run: rank 0 exited 127: ${HINT}`);
    const silent = judgePreflightUnit(unit(undefined, { output: "GPUCHECK_RESULT {cut", texts: ["Traceback …"] }), [need({ test: "a" })]);
    expect(silent.problems[0]!.message).toBe("preflight could not run: the preflight printed no GPUCHECK_RESULT line");
    const timeout = judgePreflightUnit(unit(undefined, { status: "timeout", message: "timed out after 300s: killed rank 0 (pid 12)" }), [need({ test: "a" })]);
    expect(timeout.problems[0]!.message).toBe("preflight could not run: timed out after 300s: killed rank 0 (pid 12)");
  });

  test("a node the platform set aside (drained) holds nothing up; a sweep of only such nodes checked nothing", () => {
    const drained = { unit: "gpu-09", hosts: ["gpu-09"], status: "skipped" as const, message: "gpu-09 is drained: bad DIMM", output: "", texts: [], logs: [] };
    const n = judgePreflightUnit(drained, [need({ test: "a" })]);
    expect(n).toMatchObject({ passed: true, problems: [], probes: [] });
    const good = judgePreflightUnit(unit(answer(gpuNode(8))), [need({ test: "a" })]);
    const pre = (nodes: (typeof n)[]) => ({ passed: preflightPassed(nodes), startedAt: "", endedAt: "", nodes });
    expect(preflightLines(pre([good, n]))).toEqual([
      "Preflight: PASSED on gpu-07 (1 node set aside by the platform)",
      expect.stringMatching(/^ {2}gpu-07: passed: python 3\.10\.12/),
      "  gpu-09: skipped: gpu-09 is drained: bad DIMM",
    ]);
    expect(preflightLines(pre([n]))).toEqual([
      "Preflight: FAILED: the platform offered no usable node (1 node set aside by the platform): no test ran",
      "  gpu-09: skipped: gpu-09 is drained: bad DIMM",
    ]);
    expect(preflightSkipReason(pre([n]), "a")).toBe("preflight failed on every node: the platform offered no usable node");
  });

  test("a fleet's preflight is told by exception: passing nodes as ranges grouped by what they offer, each failing node by name", () => {
    const at = (i: number, python: Record<string, unknown>) => {
      const name = `gpu-${String(i).padStart(3, "0")}`;
      const u = unit(answer(python, { hostname: name }), { unit: name, hosts: [name], logs: [`preflight/${name}/rank-0.log`] });
      return judgePreflightUnit({ ...u, output: u.output.replace("gpu-07", name) }, [need({ test: "a" })]);
    };
    const nodes = Array.from({ length: 40 }, (_, i) => at(i + 1, i === 9 ? gpuNode(7) : i === 19 ? gpuNode(8, { torch: "2.4.0+cu121", torch_cuda: "12.1" }) : gpuNode(8)));
    const pre = { passed: preflightPassed(nodes), startedAt: "", endedAt: "", nodes };
    const lines = preflightLines(pre);
    expect(lines[0]).toBe("Preflight: FAILED on gpu-010 (1 of 40 nodes): no test ran");
    expect(lines.slice(1).map((l) => l.replace(/: passed: .*| FAILED: .*/, ""))).toEqual([
      "  gpu-[001-009,011-019,021-040] (38 nodes)",
      "  gpu-020 (1 node)",
      "  gpu-010:",
      "    - 7 GPUs visible to torch 2.5.1+cu124 (7 × NVIDIA H100 80GB HBM3), nvidia-smi lists 8 × NVIDIA H100 80GB HBM3: gpusPerNode 8 needed by a",
    ]);
    expect(lines[2]).toContain("torch 2.4.0+cu121 (CUDA 12.1)");
    const healthy = nodes.map((n, i) => (i === 9 ? at(10, gpuNode(8)) : n));
    expect(preflightLines({ ...pre, passed: true, nodes: healthy })[0]).toBe("Preflight: PASSED on 40 nodes: gpu-[001-040]");
  });

  test("unexpected shapes in the answer are reasons, never a crash or a pass", () => {
    const u = unit({ hostname: 7, interpreters: { [PY]: { version: 3, torch: ["2.5"], cuda_device_count: "8", cuda_devices: "H100" } }, nvidia_smi: "x", tools: null });
    const n = judgePreflightUnit(u, [need({ test: "allreduce", tools: ["dcgmi"] })]);
    expect(n.passed).toBe(false);
    expect(n.problems.map((p) => p.message)).toEqual([
      `PyTorch is not installed for ${PY} (torch did not import), needed by allreduce: ${HINT}`,
      "dcgmi was not looked for, needed by allreduce",
    ]);
  });
});

describe("needs and the skip reason", () => {
  const planned = (over: Omit<Partial<PlannedTest>, "spec"> & { spec?: Partial<PlannedTest["spec"]> }): PlannedTest =>
    ({
      name: "t",
      kind: "collective",
      nodes: 1,
      gpusPerNode: 8,
      ranksPerNode: 8,
      worldSize: 8,
      perNode: false,
      timeoutMs: 1,
      launch: { python: PY, args: [], env: {}, files: ["gpucheck_workload/__main__.py"] },
      expect: [],
      rendered: null,
      ...over,
      spec: { collective: { op: "all_reduce", backend: "auto", impl: "workload" }, ...over.spec },
    }) as PlannedTest;

  test("what each kind needs", () => {
    expect(needsOf(planned({ name: "ar" }))).toEqual({ test: "ar", python: PY, torch: true, gpus: 8, gpuSource: "torch", nccl: true, tools: [] });
    expect(needsOf(planned({ name: "gloo", gpusPerNode: 0 }))).toMatchObject({ torch: true, gpus: 0, nccl: false });
    expect(needsOf(planned({ name: "forced", gpusPerNode: 0, spec: { collective: { op: "all_reduce", backend: "nccl", impl: "workload" } as never } }))).toMatchObject({
      nccl: true,
    });
    expect(needsOf(planned({ name: "nt", spec: { collective: { op: "all_gather", backend: "auto", impl: "nccl-tests", ncclTestsDir: "/opt/nt" } as never } }))).toEqual({
      test: "nt",
      python: PY,
      torch: false,
      gpus: 8,
      gpuSource: "nvidia-smi",
      nccl: false,
      tools: ["nccl-tests:all_gather:/opt/nt"],
    });
    expect(needsOf(planned({ name: "train", kind: "train" }))).toMatchObject({ torch: true, gpus: 8, nccl: true });
    // inventory counts its GPUs itself and names the missing one
    expect(needsOf(planned({ name: "inv", kind: "inventory" }))).toMatchObject({ torch: false, gpus: 0, nccl: false });
  });

  test("the preflight unit: one rank on every node, each interpreter and tool once, the most GPUs any test asks for", () => {
    const tests = [
      planned({ name: "a", gpusPerNode: 4, nodes: 2 }),
      planned({ name: "b", launch: { python: "/usr/bin/python3", args: [], env: { NCCL_DEBUG: "WARN" }, files: [] } }),
      planned({ name: "c", spec: { collective: { op: "all_reduce", backend: "auto", impl: "nccl-tests" } as never } }),
    ];
    const needs = tests.map(needsOf);
    expect(preflightInputs(needs)).toEqual({ interpreters: [PY, "/usr/bin/python3"], tools: ["nccl-tests:all_reduce"] });
    const t = preflightTest(tests, needs);
    expect(t).toMatchObject({ name: "preflight", perNode: true, ranksPerNode: 1, worldSize: 1, nodes: 2, gpusPerNode: 8, timeoutMs: 300_000 });
    expect(t.launch).toEqual({
      python: PY,
      args: ["-m", "gpucheck_workload", "preflight", "--python", PY, "--python", "/usr/bin/python3", "--tool", "nccl-tests:all_reduce"],
      env: { NCCL_DEBUG: "WARN" },
      files: ["gpucheck_workload/__main__.py"],
    });
  });

  test("a test is skipped with the first problem that concerns it, else the first of all", () => {
    const pre = FIXTURES["preflight-failed"]().preflight!;
    const why = `7 GPUs visible to torch 2.5.1+cu124 (7 × ${H100}), nvidia-smi lists 7 × ${H100}: gpusPerNode 8 needed by nvlink-allreduce`;
    expect(preflightSkipReason(pre, "nvlink-allreduce")).toBe(`preflight failed on gpu-02: ${why}`);
    expect(preflightSkipReason(pre, "inventory")).toBe(`preflight failed on gpu-02: ${why}`);
  });

  test("the summary shows each node's probes and problems above the tests", () => {
    const text = renderSummary(FIXTURES["preflight-failed"](), { color: false });
    expect(text).toStartWith(
      [
        "gpucheck h100-8x on acme-h100-a (ssh): ERROR: 2 skipped",
        "",
        "Preflight: FAILED on gpu-02 (1 of 2 nodes): no test ran",
        `  gpu-01: passed: python 3.10.12 (${PY}), torch 2.5.1+cu124 (CUDA 12.4), torch.cuda.device_count 8 (8 × ${H100}), NCCL 2.21.5, nvidia-smi -L 8 (8 × ${H100})`,
        `  gpu-02: FAILED: python 3.10.12 (${PY}), torch 2.5.1+cu124 (CUDA 12.4), torch.cuda.device_count 7 (7 × ${H100}), NCCL 2.21.5, nvidia-smi -L 7 (7 × ${H100})`,
        `    - 7 GPUs visible to torch 2.5.1+cu124 (7 × ${H100}), nvidia-smi lists 7 × ${H100}: gpusPerNode 8 needed by nvlink-allreduce`,
        "",
        "TEST ",
      ].join("\n"),
    );
  });
});
