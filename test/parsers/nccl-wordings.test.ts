// Every "via" wording NCCL has printed since 2.4 → one transport token; a wording no release prints
// makes the transport unmeasured, quoted. Sources of the fixtures: test/fixtures/nccl-info/README.md.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TRANSPORT_TOKENS } from "../../lib/core/metrics.ts";
import { checkTransport } from "../../lib/assess/checks.ts";
import { parseNcclInfo } from "../../lib/parsers/nccl-info.ts";
import { transportFromLogs } from "../../lib/parsers/nccl-transport.ts";
import { NETWORKS, P2P_WORDINGS, SHM_WORDINGS, classifyVia } from "../../lib/parsers/nccl-wordings.ts";

const DIR = join(import.meta.dir, "../fixtures/nccl-info");
const fixture = (name: string) => readFileSync(join(DIR, name), "utf8");

describe("the wording table", () => {
  for (const w of [...P2P_WORDINGS, ...SHM_WORDINGS]) {
    test(`${w.example} (${w.versions}) → ${String(w.token)}, a token a suite may name`, () => {
      expect(classifyVia(w.example.slice(4))?.token).toBe(w.token as string);
      expect(TRANSPORT_TOKENS[w.token as string]).toBeDefined();
    });
  }

  test("every network token is one a suite may name", () => {
    for (const n of NETWORKS) expect(TRANSPORT_TOKENS[n.token]).toBeDefined();
    expect(TRANSPORT_TOKENS.CollNet).toBeDefined();
  });

  test("network forms of every era: NIC index, PXN proxy, GDRDMA, (PCI), /Shared; CollNet", () => {
    expect(classifyVia("NET/IB/0")).toEqual({ token: "NET/IB", device: "IB/0", gdr: false });
    expect(classifyVia("NET/IBext_v8/5(2)/GDRDMA")).toEqual({ token: "NET/IB", device: "IB/5", gdr: true });
    expect(classifyVia("NET/IB/3/GDRDMA(PCI)/Shared")).toEqual({ token: "NET/IB", device: "IB/3", gdr: true });
    expect(classifyVia("NET/AWS Libfabric/2(4)/GDRDMA/Shared")).toEqual({ token: "NET/Libfabric", device: "Libfabric/2", gdr: true });
    expect(classifyVia("NET/Libfabric/0")).toEqual({ token: "NET/Libfabric", device: "Libfabric/0", gdr: false });
    expect(classifyVia("NET/Socket/3")).toEqual({ token: "NET/Socket", device: "Socket/3", gdr: false });
    expect(classifyVia("COLLNET/IB/0/GDRDMA")).toEqual({ token: "CollNet", gdr: true });
  });

  test("what no release prints is not classified: an unknown network, a new P2P or SHM form", () => {
    for (const via of ["NET/Foo/0", "NET/IB/0/NEWFLAG", "P2P/NVLINK5", "SHM/CE/direct/extra", "direct", "NVLS"]) expect(classifyVia(via)).toBeNull();
  });
});

describe("real logs of the wordings (counts from grep -c ' via ' and grep -c GDRDMA)", () => {
  const transports = (name: string) => parseNcclInfo(fixture(name)).summary?.transports;

  test("EC2 p4d, NCCL 2.9.9: NET/AWS Libfabric with GDRDMA and P2P/IPC/read", () => {
    expect(transports("p4d-4node-aws-libfabric-ipc-read-v2.9.9.txt")).toEqual({ "NET/Libfabric": 5, GDRDMA: 5, "P2P/IPC": 7 });
  });

  test("SageMaker: PXN proxy ranks and /Shared, timestamp lines between", () => {
    const s = parseNcclInfo(fixture("sagemaker-aws-libfabric-pxn-shared.txt")).summary!;
    expect(s.transports).toEqual({ "NET/Libfabric": 6, GDRDMA: 6 });
    expect(s.netDevices).toEqual(["Libfabric/0", "Libfabric/1", "Libfabric/2"]);
  });

  test("SHM/direct/direct inside the node, NET/Socket between nodes", () => {
    expect(transports("2node-shm-direct-direct-socket.txt")).toEqual({ "NET/Socket": 8, SHM: 7 });
  });

  test("P2P/direct pointer/read and NET/IB without GDRDMA", () => {
    expect(transports("2node-p2p-direct-pointer-read-netib.txt")).toEqual({ "P2P/direct": 10, "NET/IB": 4 });
  });

  test("no unclassified line in any real log", () => {
    for (const f of [
      "p4d-4node-aws-libfabric-ipc-read-v2.9.9.txt",
      "sagemaker-aws-libfabric-pxn-shared.txt",
      "2node-shm-direct-direct-socket.txt",
      "2node-p2p-direct-pointer-read-netib.txt",
    ])
      expect(parseNcclInfo(fixture(f)).summary?.unclassified).toBeUndefined();
  });
});

describe("an unclassifiable connection line: the transport is unmeasured, never a new name", () => {
  // written for this test: a real line of 2node-shm-direct-direct-socket.txt with its wording changed
  const odd = "ubuntu:9621:9692 [7] NCCL INFO Channel 14/0 : 15[7] -> 0[0] [send] via NET/Sockets2/0";
  const logs = [fixture("2node-shm-direct-direct-socket.txt"), odd, odd.replace("14/0", "15/0")];
  const why =
    'NCCL printed a connection line gpucheck cannot classify: "Channel 14/0 : 15[7] -> 0[0] [send] via NET/Sockets2/0" (and 1 more distinct line(s)): its "via" wording is not one NCCL is known to print (lib/parsers/nccl-wordings.ts), so which transport it used is unknown; add the wording with its NCCL version, or report it';

  test("the reading quotes the line, and counts nothing for it", () => {
    const r = transportFromLogs(logs);
    expect(r.unmeasured).toBe(why);
    expect(r.transport?.transports).toEqual({ "NET/Socket": 8, SHM: 7 });
    expect(r.transport?.unclassified?.count).toBe(2);
  });

  test("a forbid rule is an error (measured null), not a pass", () => {
    const r = transportFromLogs(logs);
    const m = { metrics: {}, transport: r.transport, unmeasured: { transport: r.unmeasured! } };
    const c = checkTransport("transport: forbid [NET/Socket]", { require: [], forbid: ["NET/Socket"] }, m);
    expect(c).toMatchObject({ ok: false, measured: null, message: `transport unmeasured: ${why} (forbids NET/Socket)` });
    const req = checkTransport("transport: require [SHM]", { require: ["SHM"], forbid: [] }, m);
    expect(req).toMatchObject({ ok: false, measured: null, message: `transport unmeasured: ${why} (requires SHM)` });
  });
});
