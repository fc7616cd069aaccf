// Object names and labels. Every object a run creates carries gpucheck.dev/run=<runId>, which is
// how cleanup finds them; names must stay DNS-1123 labels short enough for the pod hostnames
// (`<job>-<index>`) and the `job-name` label that Kubernetes derives from them (63 characters).
import { sha256 } from "../../lib/core/sha256.ts";

export const LABEL_RUN = "gpucheck.dev/run";
export const LABEL_TEST = "gpucheck.dev/test";
export const LABEL_UNIT = "gpucheck.dev/unit";
export const ANNOTATION_NODE = "gpucheck.dev/node";
/** where the ConfigMap with the workload is mounted; PYTHONPATH points here */
export const STAGE_DIR = "/gpucheck/stage";

/** lowercase alphanumerics and '-', no '-' at either end, at most `max` characters */
export function slug(text: string, max: number): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, max)
    .replace(/^-+|-+$/g, "");
  return s || "x";
}

function shortHash(text: string): string {
  return sha256(text).slice(0, 5);
}

export interface Names {
  runId: string;
  /** the Job (or Kubeflow job) and the headless Service share it */
  base: string;
  configMap: string;
  testLabel: string;
}

export function namesFor(testName: string, runId: string): Names {
  const testLabel = slug(testName, 30);
  const base = `gc-${testLabel}-${runId}`;
  return { runId, base, configMap: `${base}-wl`, testLabel };
}

/** per-node mode: one Job per node, named so that two nodes never collide even after truncation */
export function perNodeJobName(names: Names, node: string): string {
  return `${names.base}-${slug(node, 12)}-${shortHash(node)}`;
}

/** a round's group k: its Job and Service; by position, as a group's name ("2.node-a+node-c") is no DNS label */
export function groupName(names: Names, index: number): string {
  return `${names.base}-g${index}`;
}

/** unit label value for a node: label values allow 63 characters, node names 253 */
export function unitLabel(node: string): string {
  return node.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(node) ? node : `${slug(node, 56)}-${shortHash(node)}`;
}

export function runLabels(names: Names, extra: Record<string, string>): Record<string, string> {
  return { ...extra, "app.kubernetes.io/managed-by": "gpucheck", [LABEL_RUN]: names.runId, [LABEL_TEST]: names.testLabel };
}

/** a fresh run id: 6 lowercase hex characters, enough to keep concurrent runs apart */
export function newRunId(): string {
  return sha256(`${process.pid}-${Date.now()}-${Math.random()}`).slice(0, 6);
}

/**
 * Kubernetes expands `$(VAR)` in command, args and env values; `$$` is its escape. Everything the
 * suite supplies is escaped so that hostile values arrive literally.
 */
export function k8sLiteral(text: string): string {
  return text.replace(/\$/g, "$$$$");
}

/** the ConfigMap key for a workload path: keys cannot hold '/', the volume's items restore the tree */
export function configMapKey(path: string): string {
  return path.replace(/\//g, "..").replace(/[^-._a-zA-Z0-9]/g, "_");
}
