// inventory.cdx.json from the real captures (nvidia-smi -q of an 8-GPU H100, ibstat of its CX7s, read
// by the workload's own parsers), validated against CycloneDX 1.6's published JSON schema.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { renderInventoryCdx } from "../../../lib/report/inventory-cdx.ts";
import { FIXTURES } from "../../fixtures/results/fixtures.ts";
import { node } from "../../parsers/_inventory.ts";
import { tempDir } from "../../tmp.ts";
import { assertCdxValid, cdxSchemaErrors } from "../../report/ecosystem-validators.ts";
import { H100_NODE, killedAhead } from "../../report/ecosystem-fixtures.ts";

const written = (name: string, text: string) => {
  const path = join(tempDir("gpucheck-cdx-"), name);
  writeFileSync(path, text);
  return path;
};

type Component = { type: string; name: string; "bom-ref": string; version?: string; properties?: Array<{ name: string; value: string }>; components?: Component[] };
const prop = (c: Component, name: string) => c.properties?.find((p) => p.name === name)?.value;

/** The first GPU's identities as the capture prints them: what the BOM must carry, unchanged. */
function captured(file: string): Record<string, string> {
  const text = readFileSync(resolve(import.meta.dir, "../../../workload/tests/fixtures", file), "utf8");
  const first = (label: string) => text.match(new RegExp(`^\\s*${label}\\s+: (.+)$`, "m"))![1]!.trim();
  return {
    serial: first("Serial Number"),
    uuid: first("GPU UUID"),
    pci: first("Bus Id"),
    vbios: first("VBIOS Version"),
    driver: first("Driver Version"),
    name: first("Product Name"),
  };
}

describe("inventory.cdx.json", () => {
  const withH100 = () => ({ ...FIXTURES.passing(), inventory: [H100_NODE()] });

  test("an H100 node, an A100 node, every results fixture and a killed run are valid against CycloneDX 1.6's schema", () => {
    const a100 = node({ q: "nvidia-smi-q-a100-4gpu-555.42.02-ecc-remap-pending.txt", nvlink: null, hostname: "gpu-02" });
    const paths = [written("h100.json", renderInventoryCdx({ ...withH100(), inventory: [H100_NODE(), a100] })), written("killed.json", renderInventoryCdx(killedAhead()))];
    for (const [name, build] of Object.entries(FIXTURES)) paths.push(written(`${name}.json`, renderInventoryCdx(build())));
    assertCdxValid(...paths);
  });

  test("the schema check is real: a component type CycloneDX does not know is named with its path", () => {
    const bom = JSON.parse(renderInventoryCdx(withH100()));
    bom.components[0].type = "server";
    const path = written("bad.json", JSON.stringify(bom));
    const errors = cdxSchemaErrors(path);
    expect(errors.length).toBe(1);
    expect(errors[0]).toStartWith(
      `${path}: components/0/type: 'server' is not one of ['application', 'framework', 'library', 'container', 'platform', 'operating-system', 'device', 'device-driver', 'firmware'`,
    );
  });

  test("each GPU is a device with the capture's serial, UUID, PCI address and VBIOS; the driver and each HCA's firmware are there", () => {
    const bom = JSON.parse(renderInventoryCdx(withH100()));
    expect(bom).toMatchObject({ bomFormat: "CycloneDX", specVersion: "1.6", version: 1, metadata: { timestamp: "2025-03-04T05:06:07.250Z", component: { name: "acme-h100-a" } } });
    const n = bom.components[0] as Component;
    expect([n.type, n.name, n["bom-ref"]]).toEqual(["device", "gpu-01", "node/gpu-01"]);
    const gpus = n.components!.filter((c) => c["bom-ref"].includes("/gpu/"));
    expect(gpus.length).toBe(8);
    const want = captured("nvidia-smi-q-h100-8gpu-565.57.01.txt");
    const g0 = gpus[0]!;
    expect([g0.type, g0.name, g0["bom-ref"]]).toEqual(["device", want.name!, "gpu-01/gpu/0"]);
    expect([prop(g0, "gpucheck:gpu:serial"), prop(g0, "gpucheck:gpu:uuid"), prop(g0, "gpucheck:gpu:pci_bus_id")]).toEqual([want.serial, want.uuid, want.pci]);
    expect(g0.components as unknown).toEqual([{ type: "firmware", "bom-ref": "gpu-01/gpu/0/vbios", name: "VBIOS", version: want.vbios!, description: "VBIOS of gpu-01 GPU 0" }]);
    // every part has its own bom-ref
    const refs = renderInventoryCdx(withH100()).match(/"bom-ref": "[^"]+"/g)!;
    expect(refs.length).toBe(1 + 1 + 8 * 2 + 12 * 2 + 1);
    expect(new Set(refs).size).toBe(refs.length);
    const driver = n.components!.find((c) => c.type === "device-driver")!;
    expect([driver.name, driver.version]).toEqual(["NVIDIA GPU driver", want.driver]);
    const nic = n.components!.find((c) => c["bom-ref"] === "gpu-01/nic/mlx5_0")!;
    expect(nic.type).toBe("device");
    expect(nic.components![0]).toMatchObject({ type: "firmware", name: "mlx5_0 firmware" });
    expect(nic.components![0]!.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(prop(nic, "gpucheck:nic:port:1:state")).toBe("ACTIVE");
  });

  test("an inventory test's own result is a node's inventory too (the inventory kind prints no separate record)", () => {
    const base = FIXTURES.passing();
    const inv = base.tests[2]!;
    const units = [{ ...inv.units[0]!, unit: "gpu-01", measurement: { ...inv.units[0]!.measurement!, raw: H100_NODE() } }];
    const bom = JSON.parse(renderInventoryCdx({ ...base, inventory: [], tests: [base.tests[0]!, { ...inv, perNode: true, units }] }));
    expect(bom.components.map((c: Component) => [c.name, c.components?.length ?? 0])).toEqual([["gpu-01", 8 + 12 + 1]]);
  });

  test("what the inventory could not read is a property saying why, never a made-up value; a node with no inventory says so", () => {
    const bom = JSON.parse(renderInventoryCdx({ ...withH100(), inventory: [node({ q: "nvidia-smi-q-h100-8gpu-565.57.01.txt", nvlink: null, hostname: "gpu-01" })] }));
    const n = bom.components[0] as Component;
    expect(prop(n, "gpucheck:unmeasured:nvlinks")).toBe("nvidia-smi nvlink -s exited 255: Failed to get NVLink status");
    const killed = JSON.parse(renderInventoryCdx({ ...killedAhead(), inventory: [] }));
    expect(killed.components).toEqual([
      {
        type: "device",
        "bom-ref": "node/gpu-01",
        name: "gpu-01",
        description: "node",
        properties: [{ name: "gpucheck:unmeasured:inventory", value: "no inventory was read on this node (the suite ran no inventory test on it, or it did not finish)" }],
      },
    ]);
    expect(killed.metadata.properties).toContainEqual({ name: "gpucheck:run:complete", value: "false" });
  });

  test("the same run always gives the same bytes (a signed file is rewritten unchanged); another run another serial number", () => {
    const r = withH100();
    const text = renderInventoryCdx(r);
    expect(renderInventoryCdx(JSON.parse(JSON.stringify(r)))).toBe(text);
    expect(JSON.parse(text).serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(renderInventoryCdx({ ...r, startedAt: "2025-03-05T00:00:00.000Z" })).serialNumber).not.toBe(JSON.parse(text).serialNumber);
  });
});
