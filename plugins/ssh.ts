// PLACEHOLDER: being implemented (issue for the ssh platform). Replace this whole file.
import { z } from "zod";
import { PlatformError } from "../lib/errors.ts";
import type { Platform } from "./types.ts";

const settings = z.object({}).strict();

export const ssh: Platform<z.infer<typeof settings>> = {
  name: "ssh",
  summary: "ssh platform (not yet implemented)",
  settings,
  render: () => ({}),
  run: async () => {
    throw new PlatformError("the ssh platform is not implemented yet");
  },
};
