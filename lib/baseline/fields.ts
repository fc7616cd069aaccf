// The firmware and software baseline (issue 28 item 2): the versions a node must run, by inventory
// config field (lib/kinds/inventory/config.ts says where each is read). A suite gives them in its
// inventory test's `baseline:` block, or `gpucheck baseline capture` learns them from a golden node.

/** baseline field → what it is; the order is the order `baseline capture` writes them in. */
export const BASELINE_FIELDS = {
  kernel: "Linux kernel release",
  driver: "NVIDIA driver",
  cuda: "CUDA version the driver supports",
  vbios: "GPU VBIOS",
  nic_firmware: "HCA firmware",
  nic_psid: "HCA board PSID",
  ofed: "MLNX_OFED/DOCA mlx5_core",
  nccl: "NCCL (torch's)",
  fabric_manager: "NVIDIA Fabric Manager",
  dcgm: "DCGM",
} as const;

export type BaselineField = keyof typeof BASELINE_FIELDS;

/** Firmware is reflashed; the rest is software, reinstalled (docs/remediation.md). */
export const FIRMWARE_FIELDS: ReadonlySet<string> = new Set(["vbios", "nic_firmware", "nic_psid"]);
