// PLACEHOLDER: being implemented (issue for the docker platform). Replace this whole file.
import { z } from "zod";
import { PlatformError } from "../lib/errors.ts";
import type { Platform } from "./types.ts";

const settings = z.object({}).strict();

export const docker: Platform<z.infer<typeof settings>> = {
  name: "docker",
  summary: "docker platform (not yet implemented)",
  settings,
  render: () => ({}),
  run: async () => {
    throw new PlatformError("the docker platform is not implemented yet");
  },
};
