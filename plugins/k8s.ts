// PLACEHOLDER: being implemented (issue for the k8s platform). Replace this whole file.
import { z } from "zod";
import { PlatformError } from "../lib/errors.ts";
import type { Platform } from "./types.ts";

const settings = z.object({}).strict();

export const k8s: Platform<z.infer<typeof settings>> = {
  name: "k8s",
  summary: "k8s platform (not yet implemented)",
  settings,
  render: () => ({}),
  run: async () => {
    throw new PlatformError("the k8s platform is not implemented yet");
  },
};
