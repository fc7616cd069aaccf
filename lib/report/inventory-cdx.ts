// inventory.cdx.json: what the run found on the nodes as a CycloneDX 1.6 hardware bill of materials
// (cyclonedx.org; schema/bom-1.6.schema.json of github.com/CycloneDX/specification, copied under
// test/fixtures/cyclonedx/), so that asset tools and in-toto verifiers read it without knowing
// gpucheck. Each node is a "device" holding its GPUs and InfiniBand HCAs (devices, each with its
// firmware as a "firmware" component) and its drivers ("device-driver"); what CycloneDX has no field
// for (serial, UUID, PCI address, settings) is a property named gpucheck:<part>:<what>. Everything
// comes from the inventory kind's record of each node (workload/gpucheck_workload/kinds/inventory.py; an
// inventory test's result, or the record a node printed before another test):
// nothing read is left out, nothing unread is made up (its reason is a gpucheck:unmeasured property).
// NVSwitches are not listed: the inventory does not read them. A pure function of results.json (the
// serial number is derived from the run, the timestamp is the run's start), so `gpucheck report`
// rewrites it byte for byte and a signature over it stays good.
import { createHash } from "node:crypto";
import type { NodeInventory, ResultsFile } from "../core/types.ts";

interface Property {
  name: string;
  value: string;
}

interface Component {
  type: "device" | "firmware" | "device-driver";
  "bom-ref": string;
  name: string;
  version?: string;
  description?: string;
  manufacturer?: { name: string };
  properties?: Property[];
  components?: Component[];
}

type Obj = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined);

/** name/value pairs of the values present; an absent or null value is no property (its reason is under unmeasured). */
function props(prefix: string, values: Array<[string, unknown]>): Property[] {
  return values.flatMap(([k, v]) => {
    const value = str(v);
    return value === undefined ? [] : [{ name: `${prefix}:${k}`, value }];
  });
}

const withProps = (c: Component, p: Property[]): Component => (p.length ? { ...c, properties: p } : c);

/** The GPU settings and identities an operator matches against an order or an RMA (nvidia-smi -q's names in inventory.py). */
const GPU_FIELDS = ["index", "uuid", "serial", "pci_bus_id", "memory_total_mib", "pcie_gen_max", "pcie_width_max", "power_limit_w", "ecc_mode", "mig_mode", "persistence_mode"];

function gpu(host: string, g: Obj): Component {
  const ref = `${host}/gpu/${String(g.index)}`;
  const name = str(g.name) ?? "unknown GPU";
  const c: Component = {
    type: "device",
    "bom-ref": ref,
    name,
    // every GPU here was listed by nvidia-smi: NVIDIA's
    manufacturer: { name: "NVIDIA Corporation" },
  };
  const vbios = str(g.vbios);
  if (vbios) c.components = [{ type: "firmware", "bom-ref": `${ref}/vbios`, name: "VBIOS", version: vbios, description: `VBIOS of ${host} GPU ${String(g.index)}` }];
  return withProps(
    c,
    props(
      "gpucheck:gpu",
      GPU_FIELDS.map((k) => [k, g[k]]),
    ),
  );
}

/** The HCAs behind the InfiniBand ports the inventory read (sysfs or ibstat), each with its ports' state and its firmware. */
function nics(host: string, ports: Obj[]): Component[] {
  const byDevice = new Map<string, Obj[]>();
  for (const p of ports) {
    const dev = str(p.device);
    if (dev === undefined) continue;
    byDevice.set(dev, [...(byDevice.get(dev) ?? []), p]);
  }
  return [...byDevice].map(([dev, ps]) => {
    const ref = `${host}/nic/${dev}`;
    const c: Component = { type: "device", "bom-ref": ref, name: dev, description: `InfiniBand HCA ${dev} of ${host}` };
    const fw = ps.map((p) => str(p.firmware)).find((v) => v !== undefined);
    if (fw) c.components = [{ type: "firmware", "bom-ref": `${ref}/firmware`, name: `${dev} firmware`, version: fw }];
    const portProps = ps.flatMap((p) =>
      props(`gpucheck:nic:port:${String(p.port)}`, [
        ["state", p.state],
        ["phys_state", p.phys_state],
        ["rate_gbps", p.rate_gbps],
        ["link_layer", p.link_layer],
        ["pcie_speed", p.pcie_speed],
        ["pcie_width", p.pcie_width],
      ]),
    );
    return withProps(c, [{ name: "gpucheck:nic:device", value: dev }, ...portProps]);
  });
}

function node(inv: NodeInventory): Component {
  const host = inv.hostname;
  const raw = inv as Obj;
  const cpu = (raw.cpu ?? {}) as Obj;
  const parts: Component[] = inv.gpus.map((g) => gpu(host, g as Obj));
  parts.push(...nics(host, Array.isArray(raw.ib_ports) ? (raw.ib_ports as Obj[]) : []));
  const driver = str(inv.driver);
  if (driver)
    parts.push({
      type: "device-driver",
      "bom-ref": `${host}/driver/nvidia`,
      name: "NVIDIA GPU driver",
      version: driver,
      properties: props("gpucheck:driver", [["cuda", inv.cuda]]),
    });
  const ofed = str(raw.ofed);
  if (ofed) parts.push({ type: "device-driver", "bom-ref": `${host}/driver/mlx5_core`, name: "mlx5_core", version: ofed });
  const unmeasured = Object.entries((raw.unmeasured ?? {}) as Obj).flatMap(([k, why]) => props("gpucheck:unmeasured", [[k, why]]));
  const c: Component = { type: "device", "bom-ref": `node/${host}`, name: host, description: "node" };
  if (parts.length) c.components = parts;
  return withProps(c, [
    ...props("gpucheck:node", [
      ["hostname", host],
      ["cpu_model", cpu.model],
      ["cpu_cores", cpu.cores],
      ["memory_gb", raw.memory_gb],
      ["gpu_count", inv.gpus.length],
      ["no_gpu_reason", raw.no_gpu_reason],
      ["cuda", inv.cuda],
      ["torch", inv.torch],
      ["torch_cuda", raw.torch_cuda],
      ["nccl", inv.nccl],
    ]),
    ...unmeasured,
  ]);
}

/**
 * Every node's inventory the run holds: the GPUCHECK_INVENTORY records of results.json's `inventory`,
 * and the results of inventory tests (their measurement's raw record), which win: they are what the
 * suite asked for. One per hostname, in the order first seen.
 */
export function inventories(results: ResultsFile): NodeInventory[] {
  const byHost = new Map(results.inventory.map((i) => [i.hostname, i]));
  for (const t of results.tests) {
    if (t.kind !== "inventory") continue;
    for (const u of t.units) {
      const raw = u.measurement?.raw as NodeInventory | undefined;
      if (raw && typeof raw === "object" && typeof raw.hostname === "string" && Array.isArray(raw.gpus)) byHost.set(raw.hostname, raw);
    }
  }
  return [...byHost.values()];
}

/** The nodes the run reached (preflight, every unit) that have no inventory: listed, saying so, never as empty nodes. */
function uninventoried(results: ResultsFile, have: Set<string>): Component[] {
  const seen = new Set<string>();
  for (const n of results.preflight?.nodes ?? []) for (const h of n.hosts.length ? n.hosts : [n.node]) seen.add(h);
  for (const t of results.tests) for (const u of t.units) for (const h of u.hosts) seen.add(h);
  return [...seen]
    .filter((h) => !have.has(h))
    .sort()
    .map((h) => ({
      type: "device" as const,
      "bom-ref": `node/${h}`,
      name: h,
      description: "node",
      properties: [{ name: "gpucheck:unmeasured:inventory", value: "no inventory was read on this node (the suite ran no inventory test on it, or it did not finish)" }],
    }));
}

/** A name-based UUID (RFC 4122 version 5 layout) of the run: the same run always gets the same serial number. */
function runUuid(results: ResultsFile): string {
  const h = createHash("sha1")
    .update(`gpucheck inventory\0${results.suite.sha256}\0${results.startedAt}\0${results.command.join("\0")}`)
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export function renderInventoryCdx(results: ResultsFile): string {
  const cluster = results.suite.cluster;
  const invs = inventories(results);
  const bom = {
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    serialNumber: `urn:uuid:${runUuid(results)}`,
    version: 1,
    metadata: {
      timestamp: results.startedAt,
      tools: { components: [{ type: "application", name: "gpucheck", version: results.gpucheck }] },
      component: { type: "device", "bom-ref": "cluster", name: cluster ?? `nodes of suite ${results.suite.name}`, description: "the nodes this gpucheck run tested" },
      properties: props("gpucheck:run", [
        ["suite", results.suite.name],
        ["suite_sha256", results.suite.sha256],
        ["platform", results.platform],
        ["started_at", results.startedAt],
        ["ended_at", results.endedAt],
        ["complete", results.complete],
      ]),
    },
    components: [...invs.map(node), ...uninventoried(results, new Set(invs.map((i) => i.hostname)))],
  };
  return `${JSON.stringify(bom, null, 2)}\n`;
}
