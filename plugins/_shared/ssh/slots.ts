// What the slots of an ssh-reached rendering will be (the ssh platform's, and docker's over ssh).
import type { Slots } from "../../../lib/core/slots.ts";

/** masterAddr:<host>, masterPort:<host> ("local": this machine), controlDir, and the caller's runId. */
export function describeSlots(names: string[], runId: string): Slots {
  const what = (n: string): string => {
    if (n === "runId") return runId;
    if (n === "controlDir") return "a new local directory for the ControlMaster sockets";
    const [kind, host] = n.split(":");
    if (kind === "masterAddr") return `the address ssh reached ${host} on (its sshd's own address, from $SSH_CONNECTION)`;
    return host === "local" ? "a free port on this machine, chosen when the test starts" : `a free port on ${host}, found when it is first reached`;
  };
  return Object.fromEntries(names.map((n) => [n, what(n)]));
}
