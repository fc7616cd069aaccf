// The k8s platform: a test becomes an Indexed Job + headless Service (or a Kubeflow PyTorchJob /
// MPIJob), the workload arrives in a ConfigMap, and everything carries gpucheck.dev/run=<id> so
// cleanup can find it. Only zod, yaml and pure builders load here: @kubernetes/client-node is
// imported inside run(), so `gpucheck validate` and `plan` stay fast.
import { stringify } from "../lib/core/yaml.ts";
import type { UnitRun } from "../lib/core/types.ts";
import { type Manifest, manifestInput, namespaceOf } from "./k8s/input.ts";
import { buildManifests, MODE_REFUSES_GROUPS } from "./k8s/manifests.ts";
import { slot } from "../lib/core/slots.ts";
import { settings, type K8sSettings } from "./k8s/settings.ts";
import type { Manifest as PlatformManifest, Platform, RenderContext, RunContext } from "../lib/core/platform.ts";

/** multi-document YAML, as `kubectl apply -f` takes it */
export function manifestsYaml(manifests: Manifest[], header: string[] = []): string {
  const head = header.map((l) => `# ${l}\n`).join("");
  return head + manifests.map((m) => stringify(m, { lineWidth: 0, aliasDuplicateObjects: false })).join("---\n");
}

/** The objects a test creates, as applied; the run uses a fresh run id in every name and label. */
export interface K8sManifest extends PlatformManifest {
  manifests: Manifest[];
  yaml: string;
}

function render(ctx: RenderContext<K8sSettings>): K8sManifest {
  // the workload's content is staged at run time; the plan shows which files go where
  const files = new Map(ctx.launch.files.map((p) => [p, `(${p} from the gpucheck binary, workload ${ctx.workloadHash})`]));
  const manifests = buildManifests(manifestInput(ctx, slot("runId"), namespaceOf(ctx.settings), files));
  const header = [
    `test ${ctx.test.name}`,
    ...(ctx.test.perNode && !ctx.settings.nodes ? [`per-node: one such Job per Ready, schedulable node matching nodeSelector ("each-matching-node" stands for its name)`] : []),
  ];
  const slots = {
    runId: "a fresh 6-character id per test run, in every object's name and its gpucheck.dev/run label",
    ...(ctx.settings.namespace ? {} : { namespace: 'the kubeconfig context\'s namespace at run time ("default" when it names none)' }),
  };
  return { manifests, yaml: manifestsYaml(manifests, header), slots };
}

async function run(ctx: RunContext<K8sSettings>): Promise<UnitRun[]> {
  const { runTest } = await import("./k8s/lifecycle.ts");
  return runTest(ctx);
}

export const k8s: Platform<K8sSettings, K8sManifest> = {
  name: "k8s",
  summary: "Kubernetes: Indexed Job + headless Service (or Kubeflow PyTorchJob/MPIJob), workload in a ConfigMap",
  flags: ["image", "context", "keep"],
  // with platform.k8s.nodes: each unit an Indexed Job pinned to its nodes, all of a round at once
  anyUnits: true,
  // per-node tests take turns, each node's Job created in its turn and deleted after it
  perNodeWindow: (s) => s.maxParallel,
  settings,
  // the named nodes, known before the run, one pod per node; without them nodes are learnt at run time
  hostsFrom: "platform.k8s.nodes in the suite",
  hosts: (ctx) => (ctx.settings.nodes ? { names: ctx.settings.nodes, separate: true } : undefined),
  groupsRefused: (s) => (s.mode === "indexed-job" ? undefined : { key: "mode", why: MODE_REFUSES_GROUPS(s.mode) }),
  render,
  run,
};
