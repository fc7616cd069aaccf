// PLACEHOLDER: being implemented (issue for the slurm platform). Replace this whole file.
import { z } from "zod";
import { PlatformError } from "../lib/errors.ts";
import type { Platform } from "./types.ts";

const settings = z.object({}).strict();

export const slurm: Platform<z.infer<typeof settings>> = {
  name: "slurm",
  summary: "slurm platform (not yet implemented)",
  settings,
  render: () => ({}),
  run: async () => {
    throw new PlatformError("the slurm platform is not implemented yet");
  },
};
