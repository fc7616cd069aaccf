// `screen:` on a test: the groups (racks, rails, leaf switches) that adaptive screening launches
// first, instead of groups of about √N hosts. A fault behind one switch then fails one group, and
// the bisection that follows stays inside it. Whether the groups cover the run's hosts exactly is
// known only once the hosts are (lib/plan/pattern.ts).
import * as z from "../../core/schema.ts";
import { show } from "../../core/units.ts";

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

type Issue = { code: "custom"; message: string; input: unknown; path?: PropertyKey[]; params?: { at: "key" } };

export const screenMap = () =>
  z.unknown().transform((v, ctx) => {
    const fail = (issue: Omit<Issue, "code">) => ctx.issues.push({ code: "custom", ...issue });
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      fail({ message: `must be a map of group names to lists of hosts, such as { rack1: [gpu01, gpu02] }, got ${show(v)}`, input: v });
      return z.NEVER;
    }
    const out: Array<{ name: string; nodes: string[] }> = [];
    const seen = new Map<string, string>();
    for (const [name, hosts] of Object.entries(v)) {
      if (!GROUP_NAME.test(name)) {
        fail({
          path: [name],
          params: { at: "key" },
          input: name,
          message: `invalid group name ${show(name)}: expected letters, digits, '.', '_' and '-', starting with a letter or digit`,
        });
        continue;
      }
      if (!Array.isArray(hosts)) {
        fail({ path: [name], input: hosts, message: `must be a list of host names, got ${show(hosts)}` });
        continue;
      }
      const bad = hosts.findIndex((h) => typeof h !== "string" || h === "");
      if (bad >= 0) {
        fail({ path: [name, bad], input: hosts[bad], message: `must be a host name, got ${show(hosts[bad])}` });
        continue;
      }
      if (hosts.length < 2) {
        fail({ path: [name], input: hosts, message: `group "${name}" has ${hosts.length === 1 ? `1 host (${hosts[0]})` : "no hosts"}: a multi-node test needs 2` });
        continue;
      }
      for (const h of hosts as string[]) {
        const before = seen.get(h);
        if (before === name) fail({ path: [name], input: hosts, message: `"${h}" is listed twice in group "${name}"` });
        else if (before !== undefined) fail({ path: [name], input: hosts, message: `"${h}" is in group "${before}" and group "${name}"` });
        seen.set(h, name);
      }
      out.push({ name, nodes: [...(hosts as string[])] });
    }
    if (!out.length && !ctx.issues.length) fail({ message: "must name at least one group of hosts, got an empty map", input: v });
    return ctx.issues.length ? z.NEVER : out;
  });
