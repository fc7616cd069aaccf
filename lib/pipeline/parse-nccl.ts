// `gpucheck parse nccl <log|-> [--json]`: nccl-tests output (text of any era, or a -J JSON file) →
// the report as JSON. The log is streamed, so a 100 MB NCCL_DEBUG=INFO log needs little memory.
// Exit codes: 0 the log holds nccl-tests output (whether the run completed is in the JSON:
// `complete`, `failure`); 2 the log cannot be read; 3 it holds no nccl-tests output at all, or a
// -J file too broken to read.
import type { Printer } from "./printer.ts";
import { open } from "node:fs/promises";
import { EXIT, ParseError, SuiteError } from "../core/errors.ts";
import { asFileError } from "../core/fs-error.ts";
import { createNcclParser, type NcclParser } from "../parsers/nccl.ts";
import { renderNcclTable } from "./parse-nccl-table.ts";

const CHUNK = 1 << 16;

export async function parseNcclLog({ log, opts, print }: { log: string; opts: { json?: boolean }; print: Printer }): Promise<number> {
  const { out, err } = print;
  const parser = createNcclParser();
  await (log === "-" ? readStdin(parser) : readFile(log, parser));
  const shown = log === "-" ? "standard input" : `"${log}"`;
  let report;
  try {
    report = parser.end();
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    err(`gpucheck: ${shown}: ${e.message}\n`);
    return EXIT.infra;
  }
  if (parser.recognizedLines === 0) {
    err(`gpucheck: ${shown} holds no nccl-tests output: no table header, result row, footer or failure line\n`);
    return EXIT.infra;
  }
  if (parser.reports > 1) {
    err(`gpucheck: note: ${shown} holds ${parser.reports} nccl-tests reports (one per process without MPI, or several runs); showing the first, all count for "complete"\n`);
  }
  const json = opts.json || !process.stdout.isTTY;
  out(json ? `${JSON.stringify(report, null, 2)}\n` : renderNcclTable(report));
  return EXIT.ok;
}

async function readFile(path: string, parser: NcclParser): Promise<void> {
  let file;
  try {
    file = await open(path, "r");
    if ((await file.stat()).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
  } catch (err) {
    await file?.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new SuiteError(`Cannot read nccl-tests log "${path}": no such file`);
    throw asFileError(err, { doing: "read the nccl-tests log", path, mode: "read", choose: "another log" });
  }
  try {
    const decoder = new TextDecoder();
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await file.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      parser.push(decoder.decode(buf.subarray(0, bytesRead), { stream: true }));
    }
    parser.push(decoder.decode());
  } finally {
    await file.close();
  }
}

async function readStdin(parser: NcclParser): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of process.stdin) parser.push(decoder.decode(chunk as Buffer, { stream: true }));
  parser.push(decoder.decode());
}
