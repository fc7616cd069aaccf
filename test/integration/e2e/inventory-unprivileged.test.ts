// The trust issue's acceptance case, as a new user meets it: the binary copied alone into an empty
// directory and run by an unprivileged user (`nobody`) on a machine whose kernel log that user may not
// read, with `nvidia-smi` and `ibstat` answering from real H100 captures — one compute InfiniBand
// port set Down, `nvidia-smi nvlink -s` failing. No inventory check may pass without evidence.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { assertJunitValid } from "../../report/xsd.ts";
import { assertCdxValid, assertCtrfValid, nodeExporterServes, promtoolCheck } from "../../report/ecosystem-validators.ts";
import { gpucheckArgv, tempDir } from "../../e2e/cli.ts";

const fixtures = join(import.meta.dir, "..", "..", "..", "workload", "tests", "fixtures");
const dir = tempDir("unprivileged");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real 8-port NDR capture with mlx5_5's port 1 down: what ibstat prints for a cut cable. */
function ibstatWithPortDown(): string {
  const text = readFileSync(join(fixtures, "ibstat-h100-cx7-ndr-ib-with-eth-ports-down.txt"), "utf8");
  const start = text.indexOf("CA 'mlx5_5'");
  const end = text.indexOf("CA '", start + 1);
  const block = text.slice(start, end).replace("State: Active", "State: Down").replace("Physical state: LinkUp", "Physical state: Polling");
  return text.slice(0, start) + block + text.slice(end);
}

function setUp(): { argv: string[]; env: Record<string, string> } {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  copyFileSync(join(fixtures, "nvidia-smi-q-h100-8gpu-565.57.01.txt"), join(dir, "q.txt"));
  writeFileSync(join(dir, "ibstat.txt"), ibstatWithPortDown());
  writeFileSync(
    join(bin, "nvidia-smi"),
    `#!/bin/sh\ncase "$1" in\n  -q) cat "${dir}/q.txt" ;;\n  nvlink) echo "Failed to get NVLink status for GPU 00000000:18:00.0: Unknown Error" >&2; exit 255 ;;\n  *) exit 2 ;;\nesac\n`,
  );
  writeFileSync(join(bin, "ibstat"), `#!/bin/sh\ncat "${dir}/ibstat.txt"\n`);
  writeFileSync(
    join(dir, "suite.yaml"),
    `name: acceptance-h100
tests:
  - name: inventory
    kind: inventory
    gpusPerNode: 8
    expect:
      gpu_count: { min: 8 }
      nvlink_inactive: { max: 0 }
      xid_events: { max: 0 }
      ib_ports_active: { min: 8 }
      ib_port_rate: { min: 400 Gb/s }
      ecc_uncorrected: { max: 0 }
      remapped_rows_pending: { max: 0 }
      fabric_not_ready: { max: 0 }
`,
  );
  for (const f of ["bin/nvidia-smi", "bin/ibstat"]) chmodSync(join(dir, f), 0o755);
  for (const f of ["q.txt", "ibstat.txt", "suite.yaml"]) chmodSync(join(dir, f), 0o644);
  chmodSync(bin, 0o755);
  chmodSync(dir, 0o777);
  // the binary alone in the directory, as a user copies it; from sources when it was not built
  const [cmd, ...pre] = gpucheckArgv();
  let argv = [cmd!, ...pre];
  if (pre.length === 0) {
    copyFileSync(cmd!, join(dir, "gpucheck"));
    chmodSync(join(dir, "gpucheck"), 0o755);
    argv = ["./gpucheck"];
  }
  const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, NO_COLOR: "1" };
  // root steps down to nobody; anyone else already is an unprivileged user
  if (process.getuid?.() === 0) argv = [existsSync("/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser", "-u", "nobody", "--", ...argv];
  return { argv, env };
}

describe("inventory as an unprivileged user, with real H100 captures", () => {
  test("unreadable kernel log and nvlink status are errors with their reasons, the down port fails, 8 GPUs are counted", async () => {
    const { argv, env } = setUp();
    const out = join(dir, "out");
    const r = spawnSync(argv[0]!, [...argv.slice(1), "suite", "suite.yaml", "--python", "/usr/bin/python3", "--out", out, "--progress", "none"], {
      cwd: dir,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    // its words, when it ended otherwise (e.g. `nobody` could not reach the directory)
    if (r.status !== 3) console.error(r.stdout, r.stderr);
    expect(r.status).toBe(3);
    assertJunitValid(join(out, "junit.xml"));
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    const unit = res.tests[0].units[0];
    const checks = Object.fromEntries(unit.verdict.checks.map((c: { metric: string }) => [c.metric, c]));
    expect(unit.verdict.outcome).toBe("error");
    // nothing passes without having looked
    expect(checks.xid_events).toMatchObject({ measured: null, ok: false });
    expect(checks.xid_events.message).toStartWith(
      "xid_events unmeasured: the kernel log could not be read (/dev/kmsg: Operation not permitted; dmesg --time-format=iso exited 1: dmesg: read kernel buffer failed: Operation not permitted;",
    );
    expect(checks.xid_events.message).toContain("run as root, as a user in the adm or systemd-journal group, or with CAP_SYSLOG");
    expect(checks.nvlink_inactive).toMatchObject({
      measured: null,
      ok: false,
      message:
        "nvlink_inactive unmeasured: NVLink status could not be read (nvidia-smi nvlink -s exited 255: Failed to get NVLink status for GPU 00000000:18:00.0: Unknown Error) (expected ≤ 0)",
    });
    // the down compute port fails the IB check and is named; the GPUs are still counted
    expect(checks.ib_ports_active).toMatchObject({ measured: 7, ok: false, message: "ib_ports_active 7 < 8 expected (-13%): mlx5_5 port 1 DOWN (Polling) [all InfiniBand ports]" });
    expect(checks.gpu_count).toMatchObject({ measured: 8, ok: true });
    for (const m of ["ib_port_rate", "ecc_uncorrected", "remapped_rows_pending", "fabric_not_ready"]) expect(checks[m].ok).toBe(true);
    expect(unit.verdict.reason).toContain("also failed: ib_ports_active 7 < 8 expected");
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain("[NOT MEASURED] xid_events unmeasured: the kernel log could not be read");
    expect(junit).toContain("[MISSED] ib_ports_active 7 < 8 expected (-13%): mlx5_5 port 1 DOWN");
    assertEcosystemOutputs(out, unit.unit);
    // node_exporter's textfile collector reads the file whole and serves it
    const served = await nodeExporterServes(join(out, "metrics.prom"));
    expect(served).toContain("node_textfile_scrape_error 0\n");
    expect(served).toMatch(/^gpucheck_run_passed\{suite="acceptance-h100"\} 0$/m);
    expect(served).toMatch(/^gpucheck_check_value\{.*metric="xid_events".*verdict="error"\} NaN$/m);
  }, 180_000);
});

type Component = { name: string; "bom-ref": string; version?: string; properties?: Array<{ name: string; value: string }>; components?: Component[] };
const prop = (c: Component, name: string) => c.properties?.find((p) => p.name === name)?.value;

/** ctrf.json, inventory.cdx.json and metrics.prom beside junit.xml, each passed by a validator that is not gpucheck's, saying the same. */
function assertEcosystemOutputs(out: string, node: string): void {
  assertCtrfValid(join(out, "ctrf.json"));
  assertCdxValid(join(out, "inventory.cdx.json"));
  expect(promtoolCheck(join(out, "metrics.prom"))).toEqual({ code: 0, out: "" });
  const ctrf = JSON.parse(readFileSync(join(out, "ctrf.json"), "utf8"));
  expect(ctrf.results.tests.map((t: { name: string; status: string; rawStatus: string }) => [t.name, t.status, t.rawStatus])).toEqual([[`inventory [${node}]`, "failed", "error"]]);
  expect(ctrf.results.environment.healthy).toBe(false);
  // the node's GPUs as the real capture names them, its HCA with the port that is down, the unread kernel log said as such
  const bom = JSON.parse(readFileSync(join(out, "inventory.cdx.json"), "utf8"));
  const host = bom.components[0] as Component;
  expect(host.name).toBe(node);
  const gpu0 = host.components!.find((c) => c["bom-ref"] === `${node}/gpu/0`)!;
  expect([gpu0.name, prop(gpu0, "gpucheck:gpu:serial"), prop(gpu0, "gpucheck:gpu:uuid"), prop(gpu0, "gpucheck:gpu:pci_bus_id"), gpu0.components![0]!.version]).toEqual([
    "NVIDIA H100 80GB HBM3",
    "1654423001593",
    "GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1",
    "00000000:18:00.0",
    "96.00.74.00.01",
  ]);
  expect(host.components!.filter((c) => c["bom-ref"].startsWith(`${node}/gpu/`)).length).toBe(8);
  expect(prop(host.components!.find((c) => c.name === "mlx5_5")!, "gpucheck:nic:port:1:state")).toBe("DOWN");
  expect(host.components!.find((c) => c.name === "NVIDIA GPU driver")!.version).toBe("565.57.01");
  expect(prop(host, "gpucheck:unmeasured:xid_events")).toStartWith("the kernel log could not be read");
  const prom = readFileSync(join(out, "metrics.prom"), "utf8").split("\n");
  const sample = (metric: string) => prom.find((l) => l.startsWith("gpucheck_check_value{") && l.includes(`metric="${metric}"`))!;
  expect(sample("ib_ports_active")).toMatch(
    new RegExp(`^gpucheck_check_value\\{suite="acceptance-h100",test="inventory",kind="inventory",unit="${node}",node="${node}",metric="ib_ports_active",.*verdict="failed"\\} 7$`),
  );
  expect(sample("xid_events")).toMatch(/verdict="error"\} NaN$/);
  expect(prom).toContain('gpucheck_run_passed{suite="acceptance-h100"} 0');
}
