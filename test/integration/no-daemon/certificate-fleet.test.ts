// The certificate of a 1,000-node run: a few pages, not fifty. The rejected nodes with why, the
// accepted ones as hostlist ranges, the lost node not judged (never accepted), the hardware as one
// row of ranges; every GPU serial still in the signed statement.
import { describe, expect, test } from "bun:test";
import { createHash, generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expandHostlist } from "../../../lib/core/hostlist.ts";
import { renderJunit } from "../../../lib/report/junit.ts";
import { serialiseResults } from "../../../lib/report/results.ts";
import { certify } from "../../../lib/sign/certify.ts";
import { fleetHost, fleetResults } from "../../fixtures/results/fleet.ts";
import { tmp } from "../../sign/keys-fixture.ts";

const SUITE = "name: h100-fleet\n# the suite file's bytes only need to match the sha256 in results.json\n";
const results = fleetResults({ nodes: 1000, failing: [16, 499, 998], missing: [700] });
results.suite.sha256 = createHash("sha256").update(SUITE).digest("hex");
const dir = tmp();
writeFileSync(join(dir, "results.json"), serialiseResults(results));
writeFileSync(join(dir, "junit.xml"), renderJunit(results));
writeFileSync(join(dir, "suite.yaml"), SUITE);
const signed = certify(dir, generateKeyPairSync("ed25519").privateKey, { now: new Date("2025-03-04T09:15:00Z") });

describe("certificate of 1,000 nodes", () => {
  test("lists the rejected nodes with why, the accepted as ranges, the lost node as not judged", async () => {
    const html = readFileSync((await signed).htmlPath, "utf8");
    const rejected = [...html.matchAll(/<tr><td class="bad mono">([^<]+)<\/td><td class="small">([^<]+)<\/td><\/tr>/g)].map((m) => [m[1], m[2]]);
    expect(rejected.map((r) => r[0])).toEqual(["gpu0017", "gpu0500", "gpu0999"]);
    expect(rejected[0][1]).toStartWith("gemm-bf16: failed: gpu0017 GPU 3");
    expect(rejected[1][1]).toContain("nic_bw_gbps 96.6 Gb/s &lt; 370 Gb/s expected");
    expect(rejected[2][1]).toContain("dcgm-diag: failed:");
    const accepted = /<th>Accepted<\/th><td><span class="mono hostlist">([^<]+)<\/span>/.exec(html)?.[1] ?? "";
    expect(accepted).toBe("gpu[0001-0016,0018-0499,0501-0700,0702-0998,1000]");
    expect(expandHostlist(accepted)).toHaveLength(996);
    expect(html).toContain('<th>Not judged</th><td><span class="mono hostlist">gpu0701</span> (not measured by every per-node test, so not accepted)');
    // the hardware is one row of ranges, not a row (and eight serials) per node
    expect(html).toContain('<td class="mono hostlist">gpu[0001-1000]</td><td>1000</td>');
    expect(html).not.toContain("1654923000000");
    expect(html.length).toBeLessThan(60_000);
    expect(readFileSync((await signed).mdPath, "utf8")).toContain("Accepted: gpu[0001-0016,0018-0499,0501-0700,0702-0998,1000]");
  }, 600_000);

  test("the signed statement still has every node and every GPU serial", async () => {
    const envelope = JSON.parse(readFileSync((await signed).envelopePath, "utf8"));
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(statement.predicate.nodes).toHaveLength(1000);
    const serials = new Set(statement.predicate.nodes.flatMap((n: { gpus: Array<{ serial: string }> }) => n.gpus.map((g) => g.serial)));
    expect(serials.size).toBe(8000);
    for (const i of [0, 16, 700, 999]) expect(serials.has(String(1654923000000 + i * 8 + 7))).toBe(true);
    expect(statement.predicate.nodes.map((n: { hostname: string }) => n.hostname)).toContain(fleetHost(700));
  }, 600_000);
});
