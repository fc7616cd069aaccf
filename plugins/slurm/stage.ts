// Getting the workload onto the nodes, one of two ways (see sbatch.ts for the job's side):
// - stageDir: a directory every node and this host share (/shared, $HOME on most clusters);
//   written once per content (the hash names it), atomically, so concurrent runs agree;
// - otherwise a .tar.gz beside the batch script that the job sbcasts to node-local /tmp, which
//   also spares the shared filesystem 8 × N Python processes importing from it at once.
//   The job removes its copy in a last step; a job cancelled or killed before that step leaves
//   /tmp/gpucheck-<jobid>{,.tar.gz} on its nodes (no new step can start in a cancelled job)
//   until the user's next gpucheck job on the node sweeps the copies of ended jobs away.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { PlatformError } from "../../lib/core/errors.ts";
import { writePrivateFile } from "../../lib/core/private-fs.ts";
import { checkStage } from "../_shared/stage-check.ts";
import { tarFiles } from "../_shared/tar.ts";
import { stagePath, workloadArchive } from "./sbatch.ts";

/**
 * Writes the workload to <stageDir>/gpucheck-<hash> unless it is there as the binary carries it
 * (checkStage: this user's, writable by nobody else, each file's SHA-256 the binary's); returns the
 * directory. A stale or changed stage of this user's is replaced; another user's, or a symlink, is
 * refused: the nodes would import whatever it holds.
 */
export function stageShared(stageDir: string, hash: string, files: ReadonlyMap<string, string>): string {
  // not made here: it is where a file system every node mounts is, and a missing one is most likely
  // not mounted on this host (a directory made in its place would be seen by no node)
  if (!isDir(stageDir))
    throw new PlatformError(
      `the stage directory ${stageDir} (platform.slurm.stageDir) ${lexists(stageDir) ? "is not a directory" : "does not exist"} on this host: it must be a directory every node sees at the same path (a shared file system, mounted here too); mount or create it, or leave stageDir out to copy the workload to each node with sbcast`,
    );
  const dir = stagePath(stageDir, hash);
  if (lexists(dir)) {
    const v = checkStage(dir, files);
    if (v.ok) return dir;
    if (!v.ours) {
      throw new PlatformError(
        `the workload stage ${dir} (platform.slurm.stageDir) ${v.why}: gpucheck neither runs from it nor replaces it; remove it, or set platform.slurm.stageDir to a directory of your own`,
      );
    }
    // ours but stale or changed: out of the way first (a rename is atomic), then gone
    const aside = `${dir}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(dir, aside);
      rmSync(aside, { recursive: true, force: true });
    } catch (err) {
      throw new PlatformError(`cannot replace the stale workload stage ${dir} (platform.slurm.stageDir; it ${v.why}): ${(err as Error).message}`);
    }
  }
  let tmp: string | undefined;
  try {
    // a fresh name of mkdtemp's, 0700 until it is complete; explicit modes, whatever the umask
    tmp = mkdtempSync(`${dir}.tmp-`);
    for (const [rel, text] of files) {
      const p = join(tmp, rel);
      mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
      writeFileSync(p, text, { mode: 0o644, flag: "wx" });
    }
    chmodSync(tmp, 0o755);
    renameSync(tmp, dir);
  } catch (err) {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    // another run staged the same content first: theirs is as good as ours
    if (lexists(dir) && checkStage(dir, files).ok) return dir;
    throw new PlatformError(`cannot stage the workload in ${stageDir} (platform.slurm.stageDir): ${(err as Error).message}`);
  }
  return dir;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Writes the archive the batch script sbcasts; returns its path (removed after the job). */
export function stageArchive(jobDir: string, hash: string, files: ReadonlyMap<string, string>): string {
  const path = join(jobDir, workloadArchive(hash));
  writePrivateFile(path, gzipSync(tarFiles(files)));
  return path;
}
