// Every wording NCCL has printed after "via" in a connection line since 2.4, and the transport token
// each one counts as. A "via" text that matches none of these is not guessed at: the connection is
// unclassified and the transport unmeasured (lib/parsers/nccl-transport.ts), so a release that
// words a path anew can never slip past a `forbid` rule under a name of its own.
//
// The versions are those of NCCL's own format strings (github.com/NVIDIA/nccl, src/transport/*.cc,
// read tag by tag); `seen` names a public log that shows the wording (test/fixtures/nccl-info/README.md).

export interface Wording {
  /** the text after "via ", whole */
  pattern: RegExp;
  /** the transport it counts as, or how to get it from the match */
  token: string | ((m: RegExpExecArray) => string);
  /** NCCL releases whose format strings print it ("2.4–2.12", "2.18+") */
  versions: string;
  /** a real line with this wording */
  example: string;
  seen: string;
}

/** the suffixes NCCL appends: "/read" (P2P read mode, 2.7+), "/CE" (copy engine, 2.26+) */
const P2P_TAIL = String.raw`(?:\/read)?(?:\/CE)?`;

export const P2P_WORDINGS: Wording[] = [
  { pattern: new RegExp(`^P2P\\/IPC${P2P_TAIL}$`), token: "P2P/IPC", versions: "2.4+ (/read 2.7+)", example: "via P2P/IPC/read", seen: "github.com/NVIDIA/nccl/issues/952" },
  {
    pattern: /^P2P\/direct pointer(?:\/read)?$/,
    token: "P2P/direct",
    versions: "2.4+ (/read 2.7+)",
    example: "via P2P/direct pointer/read",
    seen: "github.com/NVIDIA/nccl/issues/1412",
  },
  { pattern: new RegExp(`^P2P\\/CUMEM${P2P_TAIL}$`), token: "P2P/CUMEM", versions: "2.18+", example: "via P2P/CUMEM/read", seen: "github.com/NVIDIA/nccl-tests/issues/311" },
  {
    pattern: new RegExp(`^P2P\\/MNNVL${P2P_TAIL}$`),
    token: "P2P/MNNVL",
    versions: "2.20+ (multi-node NVLink)",
    example: "via P2P/MNNVL",
    seen: "format string only (src/transport/p2p.cc)",
  },
  {
    pattern: /^P2P\/indirect\/\d+\[[0-9a-f]+\](?:\/read)?$/,
    token: "P2P/indirect",
    versions: "2.8+",
    example: "via P2P/indirect/2[2]",
    seen: "format string only (src/transport/p2p.cc)",
  },
  {
    pattern: /^P2P\/common device$/,
    token: "P2P/common",
    versions: "2.4–2.7 (two ranks on one GPU)",
    example: "via P2P/common device",
    seen: "format string only (src/transport/p2p.cc)",
  },
];

export const SHM_WORDINGS: Wording[] = [
  { pattern: /^direct shared memory$/, token: "SHM", versions: "2.4–2.12", example: "via direct shared memory", seen: "format string only (src/transport/shm.cc)" },
  { pattern: /^SHM\/(?:direct|CE)\/(?:direct|CE)$/, token: "SHM", versions: "2.13–2.29", example: "via SHM/direct/direct", seen: "github.com/NVIDIA/nccl/issues/1609" },
  { pattern: /^SHM\/direct$/, token: "SHM", versions: "2.30+", example: "via SHM/direct", seen: "format string only (src/transport/shm.cc)" },
];

/**
 * The network names NCCL prints after "NET/" (its own IB and Socket, or the plugin's name) and the
 * token each counts as: the IB verbs plugins all count as NET/IB.
 */
export const NETWORKS: Array<{ name: RegExp; token: string; seen: string }> = [
  { name: /^IB$/, token: "NET/IB", seen: "github.com/Mellanox/nv_peer_memory/issues/56 (2.4.7)" },
  { name: /^IBext(?:_v\d+)?$/, token: "NET/IB", seen: "github.com/NVIDIA/nccl-tests/issues/293 (IBext_v8, 2.21.5)" },
  { name: /^Socket$/, token: "NET/Socket", seen: "github.com/NVIDIA/nccl/issues/952" },
  { name: /^(?:AWS )?Libfabric$/, token: "NET/Libfabric", seen: "github.com/aws/aws-ofi-nccl/issues/715 (AWS Libfabric)" },
  { name: /^GPUDirectTCPX$|^FasTrak$/, token: "NET/TCPX", seen: "Google's GPUDirect-TCPX/TCPXO plugins (names from their sources)" },
];

/**
 * "NET/IB/0", "NET/IBext_v8/5(2)/GDRDMA", "NET/AWS Libfabric/1(2)/GDRDMA/Shared", 2.26+ "…/GDRDMA(PCI)":
 * network, NIC index, PXN proxy rank, GPUDirect RDMA, shared buffers. 2.4+.
 */
export const NET_VIA = /^NET\/(.+?)\/(\d+)(?:\((\d+)\))?(\/GDRDMA(?:\(PCI\))?)?(?:\/Shared)?$/;
/** "COLLNET/IB/0/GDRDMA" (CollNet lines, 2.6+) */
export const COLLNET_VIA = /^COLLNET\/(.+?)\/(\d+)(\/GDRDMA(?:\(PCI\))?)?$/;

export interface Classified {
  token: string;
  /** for a network connection: "IB/0" (its network token's tail and NIC index) */
  device?: string;
  gdr?: boolean;
}

/** One "via" text → what it counts as, or null when no known wording matches it. */
export function classifyVia(via: string): Classified | null {
  for (const w of [...P2P_WORDINGS, ...SHM_WORDINGS]) {
    const m = w.pattern.exec(via);
    if (m) return { token: typeof w.token === "string" ? w.token : w.token(m) };
  }
  const net = NET_VIA.exec(via);
  if (net) {
    const token = networkToken(net[1]);
    return token ? { token, device: `${token.slice(4)}/${net[2]}`, gdr: net[4] !== undefined } : null;
  }
  const coll = COLLNET_VIA.exec(via);
  if (coll && networkToken(coll[1])) return { token: "CollNet", gdr: coll[3] !== undefined };
  return null;
}

/** A network's name as NCCL prints it → its token; null for a name no known network or plugin uses. */
export function networkToken(name: string): string | null {
  if (/^NCCL RDMA Plugin\b/.test(name)) return "NET/IB";
  return NETWORKS.find((n) => n.name.test(name))?.token ?? null;
}
