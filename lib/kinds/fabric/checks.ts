// The fabric as discovered (iblinkinfo, ibqueryerrors) against the declared topology: every
// difference is one finding that names the part, what was seen, what the design says, and what to do.
// No finding is made about a port the design does not name (unused switch ports poll forever).
import type { PortCounters } from "./ibqueryerrors.ts";
import type { LinkInfoPort } from "./iblinkinfo.ts";
import { type DesignLink, type End, endKey, showEnd } from "./topology.ts";

export type FindingKind = "switch-missing" | "link-missing" | "wrong-port" | "port-state" | "width" | "speed" | "counter" | "pkey";

export interface Finding {
  kind: FindingKind;
  /** the ports concerned, "node"[port] */
  parts: string[];
  message: string;
}

/** Error counters watched before and after a test (IBTA PortCounters names, as perfquery prints them). */
export const WATCHED_COUNTERS = ["SymbolErrorCounter", "LinkDownedCounter", "LinkErrorRecoveryCounter", "PortRcvErrors", "ExcessiveBufferOverrunErrors"] as const;

const RESEAT = (a: End, b: End) => `reseat the cable between ${showEnd(a)} and ${showEnd(b)}, and replace it if the fault stays; check the switch port`;

/** Resolves a topology name: a node description, or a GUID (a switch's node GUID, a CA's port GUID). */
function resolver(ports: LinkInfoPort[]): (name: string) => string {
  const byGuid = new Map<string, string>();
  for (const p of ports) if (p.guid) byGuid.set(BigInt(p.guid).toString(16), p.node);
  return (name) => (/^0x[0-9a-f]+$/i.test(name) ? (byGuid.get(BigInt(name).toString(16)) ?? name) : name);
}

export function compareFabric(design: DesignLink[], ports: LinkInfoPort[]): Finding[] {
  const name = resolver(ports);
  const seen = new Map<string, LinkInfoPort>();
  const nodes = new Set<string>();
  for (const p of ports) {
    seen.set(endKey(p), p);
    nodes.add(p.node);
  }
  const findings: Finding[] = [];
  const links = design.map((l) => ({ ...l, a: { node: name(l.a.node), port: l.a.port }, b: { node: name(l.b.node), port: l.b.port } }));
  const designPeer = new Map<string, End>();
  for (const l of links) {
    designPeer.set(endKey(l.a), l.b);
    designPeer.set(endKey(l.b), l.a);
  }

  // a switch of the design that answers nowhere: one finding for it, not one per cable
  const switches = new Set<string>();
  for (const l of links) for (const e of [l.a, l.b]) if (!nodes.has(e.node) && links.filter((x) => x.a.node === e.node || x.b.node === e.node).length > 1) switches.add(e.node);
  for (const s of [...switches].sort()) {
    const its = links.filter((l) => l.a.node === s || l.b.node === s);
    const far = its.map((l) => (l.a.node === s ? l.b : l.a));
    findings.push({
      kind: "switch-missing",
      parts: [s],
      message: `switch "${s}" is missing from the fabric: none of its ${its.length} cables in the design answers (${far.map(showEnd).join(", ")}); check that it is powered and its management/uplink cables are in, then rerun`,
    });
  }

  const reported = new Set<string>();
  const miswired: [End, End][] = [];
  for (const l of links) {
    if (switches.has(l.a.node) || switches.has(l.b.node)) continue;
    const atA = seen.get(endKey(l.a));
    const atB = seen.get(endKey(l.b));
    const cableAt = (_e: End, p: LinkInfoPort | undefined) => (p?.peer ? { node: p.peer.node, port: p.peer.port } : null);
    const farA = cableAt(l.a, atA);
    const farB = cableAt(l.b, atB);
    const wired = (farA && endKey(farA) === endKey(l.b)) || (farB && endKey(farB) === endKey(l.a));
    if (wired) {
      const p = (atA ?? atB) as LinkInfoPort;
      const at = `cable ${showEnd(l.a)} – ${showEnd(l.b)} (topology line ${l.line})`;
      if (p.state !== "Active" || p.phys !== "LinkUp")
        findings.push({
          kind: "port-state",
          parts: [endKey(l.a), endKey(l.b)],
          message: `${at} is ${p.state}/${p.phys}, expected Active/LinkUp; check the subnet manager sees it, then ${RESEAT(l.a, l.b)}`,
        });
      if (l.width && p.width !== l.width)
        findings.push({
          kind: "width",
          parts: [endKey(l.a), endKey(l.b)],
          message: `${at} trained at ${p.width ?? "no width"}, expected ${l.width}: lanes are down; ${RESEAT(l.a, l.b)}`,
        });
      if (l.speedGbps && p.speedGbps !== null && Number(p.speedGbps) !== Number(l.speedGbps))
        findings.push({
          kind: "speed",
          parts: [endKey(l.a), endKey(l.b)],
          message: `${at} runs at ${p.speedGbps} Gbps a lane, expected ${l.speedGbps}: check both ports' enabled speeds and the cable's rating; ${RESEAT(l.a, l.b)}`,
        });
      continue;
    }
    // miscabled: an end of this design cable holds a cable to another port; named once per real cable
    let miscabled = false;
    for (const [end, far] of [
      [l.a, farA],
      [l.b, farB],
    ] as const) {
      if (!far) continue;
      miscabled = true;
      const cable = [endKey(end), endKey(far)].sort().join(" ");
      if (!reported.has(cable)) miswired.push([end, far]);
      reported.add(cable);
    }
    if (miscabled) continue;
    const states = [atA, atB].filter((p): p is LinkInfoPort => p !== undefined).map((p) => `${showEnd(p)} ${p.state}/${p.phys}`);
    findings.push({
      kind: "link-missing",
      parts: [endKey(l.a), endKey(l.b)],
      message:
        `cable ${showEnd(l.a)} – ${showEnd(l.b)} (topology line ${l.line}) is missing: ${states.length ? states.join(", ") : "neither end answers"}` +
        `${[l.a, l.b]
          .filter((e) => !nodes.has(e.node))
          .map((e) => `; "${e.node}" is not in the fabric`)
          .join("")}; ${RESEAT(l.a, l.b)}`,
    });
  }
  findings.push(...miswiredFindings(miswired, designPeer));
  return findings;
}

/** Cables on the wrong ports; two that trade places are one swap, named by all four ends. */
function miswiredFindings(cables: [End, End][], designPeer: Map<string, End>): Finding[] {
  const peer = (e: End) => designPeer.get(endKey(e));
  const same = (x: End | undefined, y: End) => x !== undefined && endKey(x) === endKey(y);
  const used = new Set<number>();
  const out: Finding[] = [];
  cables.forEach(([a, b], i) => {
    if (used.has(i)) return;
    // the cable whose ends the design gives to this one's: (a, b) and (c, d) with a–d and c–b designed
    const j = cables.findIndex(([c, d], k) => k > i && !used.has(k) && ((same(peer(a), d) && same(peer(c), b)) || (same(peer(a), c) && same(peer(d), b))));
    if (j >= 0) {
      used.add(j);
      const [c, d] = same(peer(a), cables[j][1]) ? cables[j] : [cables[j][1], cables[j][0]];
      out.push({
        kind: "wrong-port",
        parts: [endKey(a), endKey(b), endKey(c), endKey(d)],
        message:
          `swapped cables: ${showEnd(a)} goes to ${showEnd(b)} and ${showEnd(c)} to ${showEnd(d)}; the design cables ${showEnd(a)} to ${showEnd(d)} and ${showEnd(c)} to ${showEnd(b)}: ` +
          `swap the cables at ${showEnd(b)} and ${showEnd(d)}`,
      });
      return;
    }
    const want = peer(a);
    const wantB = peer(b);
    out.push({
      kind: "wrong-port",
      parts: [endKey(a), endKey(b)],
      message:
        `cable at ${showEnd(a)} goes to ${showEnd(b)}; the design cables ${showEnd(a)} to ${want ? showEnd(want) : "nothing"}` +
        `${wantB ? ` and ${showEnd(b)} to ${showEnd(wantB)}` : ` and leaves ${showEnd(b)} empty`}: move the cable from ${showEnd(b)} to ${want ? showEnd(want) : "nowhere (unplug it)"}`,
    });
  });
  return out;
}

/** A watched counter that grew between two sweeps, named with its port and both ends of its cable. */
export function counterFindings(
  before: PortCounters[] | null,
  after: PortCounters[],
  ports: LinkInfoPort[],
  watched: readonly string[] = WATCHED_COUNTERS,
  /** when the earlier sweep was taken, as said after the values */
  since = "during the test",
  /** sweeps between the two, each after a test of the run: the test a counter moved during is named */
  steps: Array<{ after: string; counters: PortCounters[] }> = [],
): Finding[] {
  const was = new Map<string, Record<string, number>>();
  for (const c of before ?? []) was.set(endKey(c), c.counters);
  const byEnd = new Map(ports.map((p) => [endKey(p), p]));
  const findings: Finding[] = [];
  for (const c of after) {
    for (const name of watched) {
      const now = c.counters[name] ?? 0;
      const then = was.get(endKey(c))?.[name] ?? 0;
      if (now <= then) continue;
      const peer = byEnd.get(endKey(c))?.peer;
      const far = peer ? { node: peer.node, port: peer.port } : null;
      const cable = far ? `, cable ${showEnd(c)} – ${showEnd(far)}` : ", no cable up on that port";
      const when = before && steps.length ? duringWhich(steps, endKey(c), name, then) : "";
      findings.push({
        kind: "counter",
        parts: far ? [endKey(c), endKey(far)] : [endKey(c)],
        message: `${name} on ${showEnd(c)} moved from ${then} to ${now}${before ? ` ${since}` : " (no earlier sweep: any non-zero count)"}${when}${cable}; ${far ? RESEAT(c, far) : "check the switch port"}`,
      });
    }
  }
  return findings;
}

/** ", during test "b" (0 after the test before it, 7 after it)": the first sweep past the start's value, or after the last one. */
function duringWhich(steps: Array<{ after: string; counters: PortCounters[] }>, key: string, name: string, start: number): string {
  let prev = start;
  for (const [i, s] of steps.entries()) {
    const v = s.counters.find((c) => endKey(c) === key)?.counters[name] ?? 0;
    if (v > start) return `, during test "${s.after}" (${prev} ${i ? `after "${steps[i - 1]!.after}"` : "at the start"}, ${v} after it)`;
    prev = v;
  }
  return `, after test "${steps.at(-1)!.after}" ended (${prev} then)`;
}
