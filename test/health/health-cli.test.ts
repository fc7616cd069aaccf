// `gpucheck health` and `gpucheck plan --health` where nothing runs: the DaemonSet and its RBAC as
// rendered (through the CLI once), and each refusal's exact line (in-process: a spawn costs seconds
// on a loaded machine). The health runs themselves are in the integration tier (test/integration/health/:
// a real suite on this machine, Slurm's drain, the fake API's condition).
import { describe, expect, test } from "bun:test";
import { gpucheck } from "../e2e/cli.ts";
import { healthManifests, HEALTH_DEFAULTS } from "../../lib/health/k8s-manifest.ts";
import { stringify } from "../../lib/core/yaml.ts";
import { healthPlan, runHealth } from "../../lib/pipeline/health.ts";
import { main as planMain } from "../../cli/commands/plan.ts";
import { PLATFORMS } from "../../cli/platforms.ts";
import type { Printer } from "../../lib/pipeline/printer.ts";

const silent: Printer = { out: () => {}, err: () => {}, stderr: process.stderr, color: false };
/** the line a command prints for the error (cli/commands/fatal.ts writes message + newline) */
const refusal = async (f: () => unknown) => {
  try {
    await f();
  } catch (e) {
    return { code: (e as { exitCode?: number }).exitCode, line: (e as Error).message };
  }
  return { code: 0, line: "" };
};
const health = (flags: Parameters<typeof runHealth>[0]["flags"], env: NodeJS.ProcessEnv = {}) =>
  runHealth({ flags, platforms: PLATFORMS, command: ["gpucheck", "health"], print: silent, signal: new AbortController().signal, interruptible: () => () => {}, env });

describe("gpucheck plan quick --platform k8s --health", () => {
  test("renders the DaemonSet on GPU nodes and a ClusterRole allowing get and patch on nodes/status only", () => {
    const r = gpucheck(["plan", "quick", "--platform", "k8s", "--health", "--image", "registry.example/gpucheck:1.0", "--baseline", "/var/lib/gpucheck/acceptance"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const docs = r.stdout.split(/^---$/m).map((d) => Bun.YAML.parse(d) as Record<string, any>);
    expect(docs.map((d) => d.kind)).toEqual(["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "DaemonSet"]);
    expect(docs[2]!.rules).toEqual([{ apiGroups: [""], resources: ["nodes/status"], verbs: ["get", "patch"] }]);
    expect(docs[3]!.subjects).toEqual([{ kind: "ServiceAccount", name: "gpucheck-health", namespace: "gpucheck" }]);
    const pod = docs[4]!.spec.template.spec;
    expect(pod.serviceAccountName).toBe("gpucheck-health");
    expect(pod.nodeSelector).toEqual({ "nvidia.com/gpu.present": "true" });
    const c = pod.containers[0];
    expect(c.image).toBe("registry.example/gpucheck:1.0");
    expect(c.command).toEqual([
      "/bin/sh",
      "-c",
      'while true; do gpucheck health --k8s-condition --node "$NODE_NAME" --suite quick --baseline /var/lib/gpucheck/acceptance; sleep 3600; done',
    ]);
    expect(c.env[0]).toEqual({ name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } });
    expect(c.volumeMounts).toEqual([{ name: "baseline", mountPath: "/var/lib/gpucheck/acceptance", readOnly: true }]);
    expect(pod.volumes).toEqual([{ name: "baseline", hostPath: { path: "/var/lib/gpucheck/acceptance", type: "Directory" } }]);
  });

  test("a suite name with a shell character arrives quoted in the loop", () => {
    const [, , , , ds] = healthManifests({ ...HEALTH_DEFAULTS, image: "x", args: ["--suite", "/etc/gpucheck/site quick.yaml"] });
    expect(stringify(ds)).toContain(`--suite '/etc/gpucheck/site quick.yaml'; sleep 3600`);
  });

  test("each refusal is one line saying what to do", async () => {
    expect(await refusal(() => healthPlan("quick", { image: "x" }, silent))).toEqual({
      code: 2,
      line: "gpucheck: plan --health renders the Kubernetes DaemonSet of `gpucheck health`: add --platform k8s (got no --platform); on Slurm, gpucheck health runs as HealthCheckProgram (docs/health.md)",
    });
    expect(await refusal(() => healthPlan("quick", { platform: "k8s" }, silent))).toEqual({
      code: 2,
      line: "gpucheck: plan --health: --image is required: an image holding the gpucheck binary, Python and torch that the DaemonSet runs on every GPU node",
    });
    expect(await refusal(() => healthPlan("quick", { platform: "k8s", image: "x", baseline: "results" }, silent))).toEqual({
      code: 2,
      line: 'gpucheck: plan --health: --baseline "results" must be an absolute path: it is each node\'s acceptance results directory, mounted into the pod from the host at that path',
    });
    expect(await refusal(() => planMain("quick", { baseline: "/r" }))).toEqual({
      code: 2,
      line: "gpucheck: plan: --baseline goes with --health (the DaemonSet's acceptance results directory on each node); a suite's plan takes none",
    });
  });
});

describe("gpucheck health refusals before anything runs", () => {
  test("--k8s-condition outside a pod says where it runs", async () => {
    expect(await refusal(() => health({ k8sCondition: true }, {}))).toEqual({
      code: 3,
      line: "--k8s-condition: KUBERNETES_SERVICE_HOST is not set: it runs in a pod (the DaemonSet of `gpucheck plan quick --platform k8s --health`), where Kubernetes sets it",
    });
  });

  test("--k8s-condition in a pod without its service-account token names the file", async () => {
    expect(await refusal(() => health({ k8sCondition: true }, { KUBERNETES_SERVICE_HOST: "10.96.0.1" }))).toEqual({
      code: 3,
      line: "--k8s-condition: could not read the service-account token at /var/run/secrets/kubernetes.io/serviceaccount/token (ENOENT): mount the pod's service-account token (automountServiceAccountToken)",
    });
  });

  test("the quick suite without --baseline names the thresholds that need the node's acceptance run", async () => {
    expect(await refusal(() => health({}))).toEqual({
      code: 2,
      line: "5 thresholds are relative to a baseline (inventory: gpu_count: baseline 100%; inventory: ib_ports_active: baseline 100%; inventory: ib_port_rate: baseline 100%; gemm: gemm_bf16_tflops_min: baseline 93%; hbm-bandwidth: membw_copy_gbps_min: baseline 93%): pass --baseline <results.json> of an earlier run",
    });
  });
});
