// `gpucheck show <suite>`: a suite as it runs, every value with the file:line that set it (lib/pipeline/show.ts).
import { showSuite } from "../../lib/pipeline/show.ts";
import { PLATFORMS } from "../platforms.ts";
import { printer } from "./print.ts";

export async function main(ref: string): Promise<number> {
  return showSuite({ ref, platforms: PLATFORMS, print: printer() });
}
