// What a test's Kubernetes objects are built from (the run id, namespace, image, the test and its
// launch), and the small facts both the builders and the run need from it.
import { SuiteError } from "../../lib/core/errors.ts";
import type { RenderContext, TestToRender } from "../../lib/core/platform.ts";
import { slot } from "../../lib/core/slots.ts";
import type { Launch } from "../../lib/core/types.ts";
import { namesFor, type Names } from "./names.ts";
import type { K8sSettings } from "./settings.ts";

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
} & Record<string, unknown>;

export interface ManifestInput {
  names: Names;
  namespace: string;
  image: string;
  settings: K8sSettings;
  test: TestToRender;
  launch: Launch;
  /** workload path → content; render() passes placeholders, run() the real files */
  files: ReadonlyMap<string, string>;
  /** ms the pods may wait to be scheduled and started, added to the Jobs' server-side deadline */
  queueTimeoutMs: number;
}

/** the API server ends a Job on its own after this, should gpucheck itself be gone */
export function activeDeadlineSeconds(i: ManifestInput): number {
  return Math.ceil((i.test.timeoutMs + i.queueTimeoutMs) / 1000) + 60;
}

export function imageFor(ctx: RenderContext<K8sSettings>): string {
  const image = ctx.cli.image ?? ctx.settings.image;
  if (!image) {
    throw new SuiteError(
      "k8s: no container image: set platform.k8s.image in the suite or pass --image <ref> (an image with Python 3 and PyTorch, e.g. nvcr.io/nvidia/pytorch:24.08-py3)",
    );
  }
  return image;
}

export function manifestInput(ctx: RenderContext<K8sSettings>, runId: string, namespace: string, files: ReadonlyMap<string, string>): ManifestInput {
  return {
    names: namesFor(ctx.test.name, runId),
    namespace,
    image: imageFor(ctx),
    settings: ctx.settings,
    test: ctx.test,
    launch: ctx.launch,
    files,
    queueTimeoutMs: ctx.suite.queueTimeoutMs,
  };
}

/** The namespace as the plan names it: the suite's, else a slot the kubeconfig fills in at run time. */
export function namespaceOf(s: K8sSettings): string {
  return s.namespace ?? slot("namespace");
}
