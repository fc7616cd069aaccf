// The one way a value from a suite reaches a remote shell: POSIX single quotes.
// ssh joins its command arguments with spaces and hands the string to the remote login shell, so
// every word the remote side must see literally is quoted here, exactly once per shell level.
import { SuiteError } from "../../../lib/core/errors.ts";

/** `it's` → `'it'\''s'`: inside single quotes nothing is special, so only `'` needs care. */
export function shQuote(value: string): string {
  if (value.includes("\0")) {
    throw new SuiteError(`gpucheck: ssh: a NUL byte cannot be passed to a remote command: ${JSON.stringify(value)}`);
  }
  // no `=`: an unquoted `a=b` in command position would be an assignment, not a word
  if (/^[A-Za-z0-9_@%+:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** argv → one shell word list. */
export function shJoin(argv: readonly string[]): string {
  return argv.map(shQuote).join(" ");
}

/**
 * A path on the remote host: `~/x` and `~` expand to the login user's home there ("$HOME" stays
 * outside the quotes; everything after it is quoted), anything else is quoted whole.
 */
export function remotePath(path: string): string {
  if (path === "~") return `"$HOME"`;
  if (path.startsWith("~/")) return `"$HOME"/${shQuote(path.slice(2))}`;
  return shQuote(path);
}

/** Environment names are written unquoted (`export NAME=…`), so only portable names pass. */
export function checkEnvName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new SuiteError(`gpucheck: ssh: environment variable name ${JSON.stringify(name)} is not valid: expected letters, digits and _, not starting with a digit`);
  }
  return name;
}
