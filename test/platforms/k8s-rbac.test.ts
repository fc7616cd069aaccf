// deploy/k8s/rbac.yaml is exactly enough: the fake API server enforces its rules (and nothing else)
// while whole runs go through, in every mode.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ClusterRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole";
import { Role } from "kubernetes-models/rbac.authorization.k8s.io/v1/Role";
import { FakeCluster } from "../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../k8s-fake/harness.ts";
import { scriptTest } from "./conformance.ts";

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const docs = parseAllDocuments(readFileSync(join(import.meta.dir, "../../deploy/k8s/rbac.yaml"), "utf8")).map((d) => d.toJS());
const role = docs.find((d) => d.kind === "Role");
const clusterRole = docs.find((d) => d.kind === "ClusterRole");

function allows(rules: Rule[], verb: string, r: { group: string; plural: string; sub?: string }): boolean {
  const res = r.sub ? `${r.plural}/${r.sub}` : r.plural;
  return rules.some((x) => x.apiGroups.includes(r.group) && x.resources.includes(res) && x.verbs.includes(verb));
}

const denied: string[] = [];
let cluster: FakeCluster;
beforeAll(async () => {
  cluster = await FakeCluster.start({
    crds: true,
    nodes: [{ name: "g1" }, { name: "g2" }],
    // the Role counts in the suite's namespace only; the ClusterRole everywhere
    authorize: (verb, r, ns) => {
      const ok = (ns === "gpu" && allows(role.rules, verb, r)) || allows(clusterRole.rules, verb, r);
      if (!ok) denied.push(`${verb} ${r.plural}${r.sub ? `/${r.sub}` : ""} ${ns ?? "(cluster)"}`);
      return ok;
    },
  });
});
afterAll(async () => {
  await cluster.stop();
});

test("rbac.yaml: valid RBAC objects, a ServiceAccount, and nodes only read through the ClusterRole", () => {
  expect(docs.map((d) => d.kind)).toEqual(["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]);
  new Role(role).validate();
  new ClusterRole(clusterRole).validate();
  expect(clusterRole.rules).toEqual([{ apiGroups: [""], resources: ["nodes"], verbs: ["list"] }]);
  const verbs = (role.rules as Rule[]).flatMap((r) => r.verbs);
  expect(verbs).not.toContain("*");
  expect((role.rules as Rule[]).flatMap((r) => r.resources)).not.toContain("secrets");
  expect((role.rules as Rule[]).flatMap((r) => r.resources)).not.toContain("pods/exec");
});

for (const [name, settings, perNode] of [
  ["indexed-job", {}, false],
  ["pytorchjob", { mode: "pytorchjob" }, false],
  ["per-node", {}, true],
] as const) {
  test(`a whole ${name} run needs nothing beyond rbac.yaml`, async () => {
    denied.length = 0;
    const t = scriptTest(`rbac-${name}`, PYTHON, "print('ok')", { nodes: perNode ? 1 : 2, ranksPerNode: 1 });
    const r = await runOnFake(cluster, { ...t, perNode, worldSize: perNode ? 1 : 2 }, { settings: { namespace: "gpu", ...settings } });
    expect(denied).toEqual([]);
    expect(r.units.map((u) => u.status)).toEqual(perNode ? ["completed", "completed"] : ["completed"]);
    expect(cluster.objects("app.kubernetes.io/managed-by=gpucheck")).toEqual([]);
  }, 30_000);
}

test("outside the Role's namespace every call is refused, and the message says so", async () => {
  const err = (await runOnFake(cluster, scriptTest("elsewhere", PYTHON, "print(1)", { nodes: 1, ranksPerNode: 1 }), { settings: { namespace: "default" } }).catch(
    (e: Error) => e,
  )) as Error;
  expect(err.message).toMatch(
    /^k8s: forbidden to create configmaps "gc-elsewhere-[0-9a-f]{6}-wl" in namespace "default": configmaps is forbidden: .* in the namespace "default": .*deploy\/k8s\/rbac\.yaml/,
  );
}, 30_000);
