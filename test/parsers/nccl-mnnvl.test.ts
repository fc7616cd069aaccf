// gb200-nvl72's proof that the trays talked over NVLink: NCCL's account must show P2P/MNNVL
// connections and no network or shared-memory one. No public NCCL log with a whole "via P2P/MNNVL"
// channel line was found (threads quote it elided): these lines follow NCCL's own format string
// (src/transport/p2p.cc: "Channel %02d : %d[%d] -> %d[%d] via P2P/MNNVL%s"), stated as such; the
// MNNVL clique line and the network line are as GB200 and H100 logs print them (NVIDIA/nccl #1769, #952).
import { expect, test } from "bun:test";
import { checkTransport } from "../../lib/assess/checks.ts";
import { parseNcclInfo } from "../../lib/parsers/nccl-info.ts";
import type { Measurement } from "../../lib/core/types.ts";

const RULE = { require: ["P2P/MNNVL"], forbid: ["NET", "SHM"] };
const TEXT = "transport: { require: [P2P/MNNVL], forbid: [NET, SHM] }";
const CLIQUE = "gb200a-04:2101743:2101803 [1] NCCL INFO MNNVL busId 0x901000 fabric UUID 3143b15bc2cd192b.28cc9b5473fb5b93 cliqueId 0x7ffe state 3 healthMask 0xaa";
const mnnvl = (from: string, to: string) => `gb200a-04:2101745:2101800 [3] NCCL INFO Channel 00 : ${from} -> ${to} via P2P/MNNVL/read`;
const check = (lines: string[]) => {
  const r = parseNcclInfo(lines.join("\n"));
  if (!r.summary) throw new Error(r.reason);
  return checkTransport(TEXT, RULE, { metrics: {}, transport: r.summary } as unknown as Measurement);
};

test("every cross-tray hop via P2P/MNNVL passes", () => {
  const c = check([CLIQUE, mnnvl("3[3]", "4[0]"), mnnvl("7[3]", "8[0]")]);
  expect(c.ok).toBe(true);
  expect(c.message).toBe("transport: P2P/MNNVL used (requires P2P/MNNVL, forbids NET, SHM)");
});

test("a hop through a NIC fails, named as the forbidden network", () => {
  const c = check([CLIQUE, mnnvl("3[3]", "4[0]"), "gb200a-04:2101745:2101800 [3] NCCL INFO Channel 00/0 : 7[3] -> 8[0] [send] via NET/IB/0/GDRDMA"]);
  expect(c.ok).toBe(false);
  expect(c.message).toBe("transport: P2P/MNNVL, NET/IB used, NET forbidden (connections: 1 × P2P/MNNVL, 1 × NET/IB, 1 with GDRDMA)");
});

test("NCCL that never connected over MNNVL fails: P2P/MNNVL required", () => {
  const c = check(["gb200a-04:2101745:2101800 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [send] via NET/IB/0/GDRDMA"]);
  expect(c.ok).toBe(false);
  expect(c.message).toBe("transport: NET/IB used, P2P/MNNVL required, NET forbidden (connections: 1 × NET/IB, 1 with GDRDMA)");
});
