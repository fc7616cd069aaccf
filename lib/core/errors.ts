// Error kinds decide exit codes and JUnit outcomes (see ARCHITECTURE.md, point 6).

export const EXIT = { ok: 0, failed: 1, usage: 2, infra: 3 } as const;

/** A problem located in a file: rendered as `path:line:col: message` plus the line and a caret. */
export interface Diagnostic {
  path: string;
  line: number; // 1-based
  col: number; // 1-based
  message: string;
  /** the offending source line, without its newline */
  source?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const head = `${d.path}:${d.line}:${d.col}: ${d.message}`;
  if (d.source === undefined) return head;
  const src = d.source.replace(/\t/g, " ");
  return `${head}\n  ${src}\n  ${" ".repeat(Math.max(0, d.col - 1))}^`;
}

/** Valid, but probably not what was meant: printed on stderr, the exit code is unchanged. */
export function formatWarning(d: Diagnostic): string {
  return formatDiagnostic({ ...d, message: `warning: ${d.message}` });
}

/** Bad suite or bad command-line input: exit 2, nothing has run. */
export class SuiteError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(
    message: string,
    readonly diagnostics: Diagnostic[] = [],
  ) {
    super(message);
    this.name = "SuiteError";
  }
  render(): string {
    if (this.diagnostics.length === 0) return this.message;
    return this.diagnostics.map(formatDiagnostic).join("\n");
  }
}

/** The platform could not launch or follow a test: exit 3, JUnit <error>. */
export class PlatformError extends Error {
  readonly exitCode = EXIT.infra;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PlatformError";
  }
}

/** An external command failed; keeps what a user needs to reproduce it. */
export class CommandError extends PlatformError {
  constructor(
    readonly argv: string[],
    readonly code: number | null,
    readonly stderrTail: string,
  ) {
    super(`${argv.map(shellQuoteForMessage).join(" ")} exited with ${code ?? "a signal"}${stderrTail ? `: ${stderrTail.trim().split("\n").slice(-3).join(" | ")}` : ""}`);
    this.name = "CommandError";
  }
}

/** Output that cannot be judged (incomplete nccl-tests log, no result line): JUnit <error>. */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "ParseError";
  }
}

function shellQuoteForMessage(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
