// Which Xid codes are the hardware's fault and which a user's program causes.
//
// Hardware and infrastructure: the list Azure's GPU node health check fails a node on (XID_EC="48 56
// 57 58 62 63 64 65 68 69 73 74 79 80 81 92 119 120", its check_gpu_xid plugin), plus the codes
// NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors) attributes to the GPU, its memory or its
// links rather than to an application: 61 (internal micro-controller breakpoint), 94/95 (contained
// and uncontained ECC errors), 121 (C2C link error), 140 (unrecovered ECC error). 63/64 (row
// remapping recorded / failed) are memory events a healthy GPU also logs once per remap, and they
// stay here because a remap during an acceptance test is worth a look.
export const HARDWARE_XIDS: ReadonlySet<number> = new Set([48, 56, 57, 58, 61, 62, 63, 64, 65, 68, 69, 73, 74, 79, 80, 81, 92, 94, 95, 119, 120, 121, 140]);

// Caused by the program running on the GPU (NVIDIA's Xid catalogue: 13 graphics engine exception,
// 31 GPU memory page fault, 43 GPU stopped processing, 45 preemptive cleanup after a killed
// process): a user's bug or a killed job, not a reason to pull the node.
export const APPLICATION_XIDS: ReadonlySet<number> = new Set([13, 31, 43, 45]);

export type XidClass = "hardware" | "application" | "other";

export function xidClass(code: number): XidClass {
  return HARDWARE_XIDS.has(code) ? "hardware" : APPLICATION_XIDS.has(code) ? "application" : "other";
}
