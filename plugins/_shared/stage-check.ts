// Is a staged workload directory what this binary carries? Read on the jump host, for a stage on a
// filesystem it shares with the nodes (Slurm's platform.slurm.stageDir). The ssh hosts run the same
// check in shell (ssh/scripts.ts stageCheckLines). lstat throughout: a symlink is judged as itself.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../../lib/core/sha256.ts";
import { workloadSums } from "../../lib/core/assets.ts";

export type StageVerdict =
  | { ok: true }
  /** `ours`: this user's own directory, stale or changed: replace it. Not ours: refuse it. */
  | { ok: false; ours: boolean; why: string };

const uid = () => process.getuid?.() ?? -1;

/** The first thing in the stage that another user owns or could write, or undefined. */
function foreign(dir: string, rel = ""): string | undefined {
  for (const name of readdirSync(join(dir, rel))) {
    const p = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(dir, p));
    if (st.uid !== uid()) return `${p} belongs to uid ${st.uid}`;
    if (st.isSymbolicLink()) return `${p} is a symlink`;
    if (st.mode & 0o022) return `${p} is writable by group or others (mode ${(st.mode & 0o777).toString(8)})`;
    if (st.isDirectory()) {
      const inner = foreign(dir, p);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** Every regular file of the stage, as paths relative to it (Python's __pycache__ left out). */
function filesOf(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) return e.name === "__pycache__" ? [] : filesOf(dir, p);
    return [p];
  });
}

/** `marker`: the file the stager writes last, a stage without it being a copy cut short. */
export function checkStage(dir: string, files: ReadonlyMap<string, string>, marker?: string): StageVerdict {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dir);
  } catch (err) {
    return { ok: false, ours: true, why: `cannot be read (${(err as Error).message})` };
  }
  if (st.isSymbolicLink()) return { ok: false, ours: false, why: "is a symlink" };
  if (!st.isDirectory()) return { ok: false, ours: st.uid === uid(), why: "is not a directory" };
  if (st.uid !== uid()) return { ok: false, ours: false, why: `belongs to uid ${st.uid}, not to this user (uid ${uid()})` };
  if (st.mode & 0o022) return { ok: false, ours: true, why: `is writable by group or others (mode ${(st.mode & 0o777).toString(8)})` };
  try {
    const bad = foreign(dir);
    if (bad) return { ok: false, ours: true, why: `holds ${bad}` };
    const want = workloadSums(files);
    const have = filesOf(dir).filter((p) => p !== marker);
    const extra = have.find((p) => !want.has(p));
    if (extra) return { ok: false, ours: true, why: `holds ${extra}, which the binary does not carry` };
    for (const [p, sum] of want) {
      if (!have.includes(p)) return { ok: false, ours: true, why: `lacks ${p}` };
      if (sha256(readFileSync(join(dir, p))) !== sum) return { ok: false, ours: true, why: `has ${p} changed from the binary's copy` };
    }
  } catch (err) {
    return { ok: false, ours: true, why: `cannot be read (${(err as Error).message})` };
  }
  return { ok: true };
}
