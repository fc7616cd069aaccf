// `gpucheck list`: prints what the build rendered from the registries (lib/pipeline/list-render.ts, scripts/gen-list.ts).
import { out } from "../output.ts";
import { LIST_JSON, LIST_TEXT } from "./list.gen.ts";

export async function main(flags: { json?: boolean }): Promise<number> {
  out(flags.json ? LIST_JSON : LIST_TEXT);
  return 0;
}
