// What a command hands a flow to print with: cli/output.ts's synchronous writes, colour on a TTY.
import type { Printer } from "../../lib/pipeline/printer.ts";
import { err, out, syncStderr } from "../output.ts";
import { useColor } from "./color.ts";

export function printer(): Printer {
  return { out, err, stderr: syncStderr(), color: useColor(process.stdout) };
}
