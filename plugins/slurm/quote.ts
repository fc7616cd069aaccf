// One quoting function for the two languages in an sbatch script: bash, and sbatch's own parser
// of `#SBATCH` lines. sbatch (src/sbatch/opt.c, _get_argument) honours backslash escapes even
// inside quotes, so bash's '...' style loses backslashes there. Double quotes with \ " $ `
// escaped read the same in both: bash unescapes exactly those four inside "...", and sbatch
// unescapes any escaped character and keeps everything else between the quotes literally,
// whitespace and # included.
import { SuiteError } from "../../lib/core/errors.ts";

/** `s` as one word that bash and an #SBATCH line both read back literally. */
export function quote(s: string): string {
  if (s.includes("\0")) throw new SuiteError(`gpucheck: slurm: a value contains a NUL byte, which no shell can pass on: ${JSON.stringify(s)}`);
  return `"${s.replace(/[\\"$`]/g, "\\$&")}"`;
}

/** Bare words stay bare so the script reads naturally; anything else is quoted. */
export function word(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : quote(s);
}

/** `#SBATCH --name=value`: one directive per line, so a value may not contain a line break. */
export function directive(name: string, value?: string | number): string {
  if (value === undefined) return `#SBATCH --${name}`;
  const v = String(value);
  if (/[\r\n]/.test(v)) {
    throw new SuiteError(`gpucheck: slurm: the value of --${name} contains a line break, which an #SBATCH line cannot hold: ${JSON.stringify(v)}`);
  }
  return `#SBATCH --${name}=${word(v)}`;
}
