// An inventory test's expected wall time: its launch alone. It reads nvidia-smi, sysfs and the kernel
// log for seconds, and the launch start-up that lib/plan/expected-time.ts adds was derived from gpu-1x's
// measured wall with its two inventories counted as nothing but their launches
// (lib/plan/measured-times.ts), so their reading is inside that figure already.
import type { KindTime } from "../time-basis.ts";

export function inventoryExpected(): KindTime {
  return { ms: 0, basis: "estimated as its launch alone (its reads are inside the measured start-up)" };
}
