// `platform.slurm:` in a suite. Every key is optional; what a key leaves out, Slurm's own
// defaults decide (the default partition, the user's default account …).
import * as z from "../../lib/core/schema.ts";

const text = z.string().trim().min(1);
const oneLine = text.refine((s) => !/[\r\n]/.test(s), { message: "must be a single line" });

export const settings = z.lazy(() =>
  z
    .object({
      partition: oneLine.optional(),
      account: oneLine.optional(),
      reservation: oneLine.optional(),
      qos: oneLine.optional(),
      /** node features, e.g. "h100&ib" */
      constraint: oneLine.optional(),
      /** a Slurm hostlist, e.g. "gpu[001-016]"; per-node mode sweeps exactly these nodes */
      nodelist: oneLine.optional(),
      /**
       * sbatch --segment: with Slurm's block topology (topology/block, e.g. one block per GB200 NVL72
       * rack), the job's nodes come in segments of this many nodes, each inside one block; written
       * only on jobs whose node count is a multiple of it, as Slurm requires
       */
      segment: z.number().int().positive().optional(),
      exclude: oneLine.optional(),
      /** whole nodes for every test: nobody else's job disturbs a benchmark */
      exclusive: z.boolean().default(true),
      /**
       * CPUs each rank gets (sbatch and srun --cpus-per-task); absent: the batch node's CPUs
       * (SLURM_CPUS_ON_NODE) over the ranks per node, worked out when the job starts
       */
      cpusPerTask: z.number().int().positive().optional(),
      /** extra #SBATCH lines, verbatim, e.g. ["--mem=0", "--switches=1"] */
      sbatch: z.array(oneLine.refine((s) => s.startsWith("-"), { message: 'must be an sbatch option starting with "-", e.g. "--mem=0"' })).default([]),
      /** extra options for every rank step, one argument each, e.g. ["--mpi=pmix", "--cpu-bind=none"] */
      srun: z.array(z.string()).default([]),
      /** a directory every node and this host see at the same path; absent: sbcast to node-local /tmp */
      stageDir: text.refine((s) => s.startsWith("/"), { message: "must be an absolute path" }).optional(),
      /** run the ranks in a container instead of the nodes' own Python */
      container: z
        .object({
          image: oneLine,
          /** pyxis: srun --container-image (enroot); apptainer/singularity: `<runtime> exec` per rank */
          runtime: z.enum(["pyxis", "apptainer", "singularity"]).default("pyxis"),
          /** "src:dst[:flags]" bind mounts */
          mounts: z.array(oneLine.refine((s) => !s.includes(","), { message: "must not contain a comma (pyxis separates mounts with commas)" })).default([]),
        })
        .strict()
        .optional(),
      /** the longest gap between two squeue calls, seconds; polling starts fast and slows to this */
      pollMaxS: z.number().positive().max(600).default(5),
    })
    .strict(),
);

export type SlurmSettings = z.infer<typeof settings>;
