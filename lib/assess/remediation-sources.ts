// The remediation classes a failed check can carry, and where each is published as operator practice.
// A class is what an operator does next; the sources are the pages that prescribe it (read in November
// 2026, listed in /docs/remediation.md). Nothing here is quoted: each line is the practice in our words.

import type { Remediation } from "../core/types.ts";

export type RemediationClass = Remediation["class"];

export interface SourceRef {
  /** short name shown after the action */
  name: string;
  url: string;
}

export const SOURCES = {
  xidCatalog: { name: "NVIDIA Xid catalogue, resolution buckets", url: "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html" },
  healthValidation: { name: "NVIDIA Health Validation check catalogue, recommended actions", url: "https://docs.nvidia.com/health-validation/reference/checks/overview" },
  rowRemap: { name: "NVIDIA GPU memory error management (row remapping, page retirement)", url: "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/" },
  dcgmDiag: { name: "NVIDIA DCGM diagnostics", url: "https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/dcgm-diagnostics.html" },
  azureNhc: { name: "Azure HPC node health checks and Guest Health Reporting", url: "https://github.com/Azure/azurehpc-health-checks" },
  coreweave: { name: "CoreWeave fleet management (node lifecycle, day 1 firmware and cable verification)", url: "https://docs.coreweave.com/platform/fleet-management" },
  crusoe: { name: "Crusoe burn-in validation (failing nodes repaired and re-run)", url: "https://docs.crusoecloud.com/compute/virtual-machines/burn-in-validation" },
  verda: { name: "Verda instant-cluster validation gates (kernel, firmware, ECC consistency)", url: "https://docs.verda.com/clusters/instant-clusters/validation" },
  clustermax: { name: "SemiAnalysis ClusterMAX health-check expectations", url: "https://clustermax.ai/expectations/health-checks" },
  imexGuide: { name: "NVIDIA IMEX guide (nvidia-imex-ctl, the nvidia-imex service)", url: "https://docs.nvidia.com/multi-node-nvlink-systems/imex-guide/" },
} as const satisfies Record<string, SourceRef>;

export type SourceKey = keyof typeof SOURCES;

/** What each class means, as `gpucheck list` and docs/remediation.md print it. */
export const CLASSES: Record<RemediationClass, { label: string; sources: SourceKey[] }> = {
  "reset-gpu": { label: "reset the GPU (nvidia-smi -r with its clients stopped), then run the test again", sources: ["xidCatalog", "healthValidation", "rowRemap"] },
  "reboot-node": { label: "drain and reboot the node, then run the test again", sources: ["xidCatalog", "healthValidation", "azureNhc"] },
  "reseat-cable": { label: "reseat, or replace, the cable or module named at both ends", sources: ["xidCatalog", "coreweave", "azureNhc"] },
  "reflash-firmware": { label: "flash the firmware the baseline names", sources: ["coreweave", "verda"] },
  "reinstall-driver": { label: "reinstall or reconfigure the driver stack to the baseline (driver, peer-memory module, Fabric Manager, NCCL)", sources: ["verda", "clustermax"] },
  reconfigure: { label: "restore the expected device setting (ECC on, MIG off, persistence on), then reset the GPU", sources: ["verda", "rowRemap"] },
  "rma-part": { label: "return the part to the vendor (RMA), naming its serial", sources: ["xidCatalog", "rowRemap", "dcgmDiag"] },
  "check-cooling": {
    label: "check the cooling and power of the part (airflow, fans, inlet temperature, power cap), then run the test again",
    sources: ["healthValidation", "coreweave", "dcgmDiag"],
  },
  "escalate-vendor": {
    label: "open a case with the vendor with the evidence bundle; isolate the node if the figure is the job's",
    sources: ["healthValidation", "crusoe", "azureNhc"],
  },
};
