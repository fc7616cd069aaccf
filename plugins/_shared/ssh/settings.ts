// `platform.ssh:` in a suite. Every key is optional: `--hosts` alone is enough to run.
import * as z from "../../../lib/core/schema.ts";

const seconds = (d: number) => z.number().int().min(1).default(d);

export const sshSettings = z.lazy(() =>
  z
    .object({
      /** `[user@]host[:port]` entries; `--hosts`/`--hostfile` replace them */
      hosts: z.array(z.string().min(1)).min(1).optional(),
      /** one host per line, `#` comments; relative to the suite file */
      hostfile: z.string().min(1).optional(),
      /** login user and port for hosts that do not name their own */
      user: z
        .string()
        .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/, "must be a user name")
        .optional(),
      port: z.number().int().min(1).max(65535).optional(),
      /** ssh -F: read this file instead of ~/.ssh/config; relative to the suite file */
      configFile: z.string().min(1).optional(),
      /** ssh -i */
      identityFile: z.string().min(1).optional(),
      /** extra `-o` options, e.g. ["ProxyJump=bastion"]; they win over gpucheck's defaults */
      sshOptions: z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9]*[= ]\S/, "must look like Name=value")).default([]),
      /** where the workload is staged on each host: <stageDir>/<content hash>; `~` is the login user's home */
      stageDir: z.string().min(1).default("~/.cache/gpucheck"),
      /** hosts connected to (and ranks being started) at once */
      maxParallel: z.number().int().min(1).max(4096).default(32),
      /**
       * direct: one ssh per rank; gpucheck: one ssh per host running the workload's own launcher
       * (fewer ssh clients on the jump host for hundreds of 8-GPU hosts); torchrun: one torchrun per
       * host; mpirun: one mpirun on the first host, which reaches the others itself
       */
      launcher: z.enum(["direct", "gpucheck", "torchrun", "mpirun"]).default("direct"),
      /** the Python on the hosts, when it differs from the suite's */
      python: z.string().min(1).optional(),
      /** MASTER_ADDR as the other hosts reach rank 0's host (whole-cluster tests); default: the address ssh reached it on */
      masterAddr: z.string().min(1).optional(),
      /** MASTER_PORT; default: a free port chosen on rank 0's host */
      masterPort: z.number().int().min(1).max(65535).optional(),
      /** ssh ConnectTimeout, s */
      connectTimeout: seconds(10),
      /** ssh ServerAliveInterval, s: a host that stops answering is declared dead after 3 of these */
      aliveInterval: seconds(5),
      /** ms a rank may outlive a failed peer before it is killed (a gloo/NCCL peer never returns alone) */
      peerFailureGraceMs: z.number().int().min(0).default(5000),
      /** ms between SIGTERM and SIGKILL when remote ranks are stopped */
      killGraceMs: z.number().int().min(0).default(3000),
    })
    .strict()
    .refine((s) => !(s.hosts && s.hostfile), { message: "set hosts or hostfile, not both", path: ["hostfile"] }),
);

export type SshSettings = z.infer<typeof sshSettings>;
