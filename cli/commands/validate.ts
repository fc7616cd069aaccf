// `gpucheck validate <suite>`: load and check a suite, run nothing (lib/pipeline/validate.ts).
import { validateSuite } from "../../lib/pipeline/validate.ts";
import { PLATFORMS } from "../platforms.ts";
import { printer } from "./print.ts";

export async function main(ref: string, flags: { json?: boolean } = {}): Promise<number> {
  return validateSuite({ ref, flags, platforms: PLATFORMS, print: printer() });
}
