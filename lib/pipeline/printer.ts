// Where a flow prints. The flow decides what to say; the command says where (cli/output.ts writes
// synchronously, so nothing is lost when the process exits right after).
export interface Printer {
  /** standard output: what the command produces */
  out(text: string): void;
  /** standard error: warnings, notes, what went wrong */
  err(text: string): void;
  /** standard error as a stream, for the live progress display */
  stderr: NodeJS.WriteStream;
  /** whether standard output takes colour */
  color: boolean;
}
