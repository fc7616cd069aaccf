// Getting the workload onto the nodes, one of two ways (see sbatch.ts for the job's side):
// - stageDir: a directory every node and this host share (/shared, $HOME on most clusters);
//   written once per content (the hash names it), atomically, so concurrent runs agree;
// - otherwise a .tar.gz beside the batch script that the job sbcasts to node-local /tmp, which
//   also spares the shared filesystem 8 × N Python processes importing from it at once.
//   The job removes its copy in a last step; a job cancelled or killed before that step leaves
//   /tmp/gpucheck-<jobid>{,.tar.gz} on its nodes (no new step can start in a cancelled job)
//   until the user's next gpucheck job on the node sweeps the copies of ended jobs away.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { PlatformError } from "../../lib/core/errors.ts";
import { tarFiles } from "../_shared/tar.ts";
import { stagePath, workloadArchive } from "./sbatch.ts";

/** Writes the workload to <stageDir>/gpucheck-<hash> unless it is there; returns the directory. */
export function stageShared(stageDir: string, hash: string, files: ReadonlyMap<string, string>): string {
  const dir = stagePath(stageDir, hash);
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  try {
    for (const [rel, text] of files) {
      const p = join(tmp, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
    }
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    // another run staged the same content first: theirs is as good as ours
    if (existsSync(dir)) return dir;
    throw new PlatformError(`cannot stage the workload in ${stageDir} (platform.slurm.stageDir): ${(err as Error).message}`);
  }
  return dir;
}

/** Writes the archive the batch script sbcasts; returns its path (removed after the job). */
export function stageArchive(jobDir: string, hash: string, files: ReadonlyMap<string, string>): string {
  const path = join(jobDir, workloadArchive(hash));
  writeFileSync(path, gzipSync(tarFiles(files)));
  return path;
}
