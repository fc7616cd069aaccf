// lib/parsers/nccl-transport.ts hcaRoute/ibAccount: did the bytes cross NET/IB on the pinned HCA and
// no other? Read from the real NCCL INFO captures in test/fixtures/nccl-info/ (README there); the
// connection counts below were taken from the files with grep, not from the parser.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseNcclInfo } from "../../lib/parsers/nccl-info.ts";
import { hcaRoute, ibAccount } from "../../lib/parsers/nccl-transport.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/nccl-info", name), "utf8");
const summary = (text: string) => {
  const r = parseNcclInfo(text);
  if (!r.summary) throw new Error(r.reason);
  return r.summary;
};
// one node's lines of a two-node capture: what that node's own process printed
const node = (text: string, host: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${host}:`) || l.startsWith("NCCL version"))
    .join("\n");
const gdr = fixture("a100pcie-2node-ibext-gdrdma-v2.21.5.txt");

test("each node of a two-node run on mlx5_0 (IBext plugin, GPUDirect): the route holds for mlx5_0:1 and for mlx5_0", () => {
  for (const host of ["test1", "test2"]) {
    const s = summary(node(gdr, host));
    expect(hcaRoute(s, "mlx5_0:1")).toBeNull();
    expect(hcaRoute(s, "mlx5_0")).toBeNull();
    expect(ibAccount(s)).toBe("4 × NET/IB, all GDRDMA");
  }
  expect(ibAccount(summary(node(fixture("a100pcie-2node-ibext-no-gdr-v2.21.5.txt"), "test1")))).toBe("4 × NET/IB, no GDRDMA: staged through host memory");
});

test("the same run credited to another HCA or port names the HCA NCCL opened", () => {
  const s = summary(node(gdr, "test1"));
  expect(hcaRoute(s, "mlx5_3:1")).toBe("NCCL opened mlx5_0:1 (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_3:1 alone: the NCCL_IB_HCA pin did not hold");
  expect(hcaRoute(s, "mlx5_0:2")).toBe("NCCL opened mlx5_0:1 (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_0:2 alone: the NCCL_IB_HCA pin did not hold");
});

test("NET/Socket between the nodes is named with the connections", () => {
  expect(hcaRoute(summary(fixture("8gpu-2node-p2p-ipc-socket-fallback.txt")), "mlx5_0:1")).toBe(
    "the bytes crossed NET/Socket, not NET/IB on mlx5_0:1 (connections: 14 × P2P/IPC, 2 × NET/Socket)",
  );
});

test("two HCAs opened where one was pinned, NET/IB without its device list, and no network at all are each a reason", () => {
  expect(hcaRoute(summary(fixture("2node-roce-gdr-disabled.txt")), "mlx5_0:1")).toBe(
    "NCCL opened mlx5_0:1, mlx5_1:1 (NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE), not mlx5_0:1 alone: the NCCL_IB_HCA pin did not hold",
  );
  expect(hcaRoute(summary(fixture("2node-netib-gdr-no-module.txt")), "mlx5_0:1")).toBe(
    'NCCL named no HCA it opened (no "NET/IB : Using" line), so which HCA its NET/IB connections crossed is unknown',
  );
  expect(hcaRoute(summary(fixture("rtx3090-1node-socket-p2p-direct-v2.15.5.txt")), "mlx5_0:1")).toBe(
    "no connection crossed NET/IB, so nothing crossed mlx5_0:1 (connections: 8 × P2P/direct)",
  );
});

test("a connection on a NIC index NCCL never listed is not credited to the pinned HCA", () => {
  // written for the test: the "Using" line of the capture above with a connection line on NIC 1
  const s = summary(`${node(gdr, "test1")}\nh:1:2 [0] NCCL INFO Channel 02/0 : 1[0] -> 0[0] [receive] via NET/IB/1/GDRDMA\n`);
  expect(hcaRoute(s, "mlx5_0:1")).toBe("connections via NET/IB/1, a NIC index NCCL did not list (NET/IB : Using [0]mlx5_0:1/IB/SHARP), not mlx5_0:1");
});
