// `gpucheck validate` as a user runs it: every problem on stderr, exit 2; a summary line and
// exit 0 for a good suite.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { gpucheckRun } from "../e2e/cli.ts";

const root = join(import.meta.dir, "../..");
// the first command loads its modules (TypeScript compiled on first import): seconds on a loaded 2-core machine
const SLOW = 60_000;

/** gpucheck as a user runs it, in root (in this process: test/e2e/cli.ts's gpucheckRun) */
const gpucheck = (...args: string[]) => gpucheckRun(args, { cwd: root });

async function validate(ref: string) {
  const p = await gpucheck("validate", ref);
  return { code: p.status, stdout: p.stdout, stderr: p.stderr };
}

test(
  "a file with many mistakes: all of them, positioned, exit 2",
  async () => {
    const r = await validate("test/fixtures/suites/bad-many.yaml");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const heads = r.stderr.split("\n").filter((l) => l.startsWith("test/"));
    expect(heads).toEqual([
      'test/fixtures/suites/bad-many.yaml:3:1: unknown key "platfrom": did you mean "platform"?',
      'test/fixtures/suites/bad-many.yaml:5:12: invalid duration "10 mins": expected a number with ms, s, m or h (e.g. 90s, 10m, 1h30m); a plain number is seconds',
      'test/fixtures/suites/bad-many.yaml:6:3: unknown key "gpusPerNod": did you mean "gpusPerNode"?',
      'test/fixtures/suites/bad-many.yaml:10:12: "nodes" must be a positive integer, got 0',
      'test/fixtures/suites/bad-many.yaml:11:29: invalid size "8 GiBs": expected a number of bytes or a number with B, KiB, MiB, GiB, TiB (binary, also K, M, G, T) or KB, MB, GB, TB (decimal)',
      'test/fixtures/suites/bad-many.yaml:11:57: invalid op "allreduce": did you mean "all_reduce"?',
      'test/fixtures/suites/bad-many.yaml:13:21: invalid value "400 GBs" for metric "busbw": expected a number in GB/s, B/s, KB/s, MB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, Mb/s, Gb/s, Tb/s, Gbit/s, Gbps',
      'test/fixtures/suites/bad-many.yaml:14:7: metric "samples_per_s" is not produced by kind "collective": expected one of busbw, algbw, time_us, busbw_peak, busbw_avg, wrong, out_of_bounds, gpu_temp_max, gpu_power_max, gpu_util_mean, xid_hardware, xid_application, xid_events, throttle_hw, throttle_sw_thermal, throttle_sw_power_cap, throttle_events, sm_clock_min_mhz, ib_link_downed, ib_port_errors, nvlink_errors, rail_busbw, transport',
      'test/fixtures/suites/bad-many.yaml:15:11: duplicate test name "nvlink": first defined at line 8',
      'test/fixtures/suites/bad-many.yaml:16:11: invalid kind "colective": did you mean "collective"?',
      'test/fixtures/suites/bad-many.yaml:19:12: data "fashionmnist" needs "dataDir": the directory holding the data set on the nodes, or "@generated" for a small generated set',
      'test/fixtures/suites/bad-many.yaml:19:75: "warmupSteps" (10) must be less than "steps" (10): throughput is measured after warm-up',
    ]);
    // each is followed by its source line and a caret under the column
    expect(r.stderr).toContain(`test/fixtures/suites/bad-many.yaml:11:57: invalid op "allreduce": did you mean "all_reduce"?
      collective: { minBytes: 8 GiBs, maxBytes: 8GiB, op: allreduce }
                                                          ^
`);
  },
  SLOW,
);

test(
  "a missing file: one line, exit 2",
  async () => {
    const r = await validate("./nope.yaml");
    expect(r).toEqual({ code: 2, stdout: "", stderr: "gpucheck: suite file not found: ./nope.yaml\n" });
  },
  SLOW,
);

test(
  "a site suite extending a built-in is valid",
  async () => {
    const r = await validate("test/fixtures/suites/site-h100.yaml");
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout:
        'test/fixtures/suites/site-h100.yaml: valid: suite "acme-h100", 13 tests (1 inventory, 3 collective, 2 train, 1 membw, 1 pcie, 1 gemm, 1 burn, 1 nvlink, 1 dcgm, 1 nic-loopback), platform ssh, extends builtin:h100-8x.yaml\n',
    });
  },
  SLOW,
);

test(
  "every built-in validates",
  async () => {
    for (const name of ["cpu-smoke", "gpu-1x", "h100-8x", "h200-8x", "h100-multinode", "b200-8x", "gb200-nvl72", "quick", "h100-8x-quick", "h200-8x-quick", "b200-8x-quick"]) {
      const r = await validate(name);
      expect({ name, code: r.code, stderr: r.stderr }).toEqual({ name, code: 0, stderr: "" });
      expect(r.stdout).toStartWith(`builtin:${name}.yaml: valid: suite "${name}"`);
    }
  },
  SLOW,
);

test(
  "a --platform typo gets a did-you-mean, exit 2",
  async () => {
    const p = await gpucheck("plan", "cpu-smoke", "--platform", "slurn");
    expect(p.status).toBe(2);
    expect(p.stderr).toBe('gpucheck: unknown platform "slurn": did you mean "slurm"?\n');
  },
  SLOW,
);

test(
  "a relative threshold without --baseline stops before anything runs, exit 2",
  async () => {
    const out = join(root, "test", "fixtures", "suites", "never-written");
    const p = await gpucheck("suite", "test/fixtures/suites/relative-no-baseline.yaml", "--out", out);
    expect(p.status).toBe(2);
    expect(p.stderr).toBe("a threshold is relative to a baseline (ar: busbw: baseline 95%): pass --baseline <results.json> of an earlier run\n");
    expect(Bun.file(join(out, "results.json")).size).toBe(0);
  },
  SLOW,
);

test(
  "a flag the platform would ignore is an error naming the flag and who uses it, exit 2",
  async () => {
    const p = await gpucheck("plan", "cpu-smoke", "--hosts", "a,b");
    expect(p.status).toBe(2);
    expect(p.stderr).toBe('gpucheck: platform "local" does not use --hosts/--hostfile (used by ssh, slurm, docker): remove it or choose one of those platforms with --platform\n');
  },
  SLOW,
);
