import { local } from "../../plugins/local.ts";
import type { Platform } from "../../lib/core/platform.ts";
import { conformance } from "./conformance.ts";
import { localLeftovers } from "./leftovers.ts";

conformance(local as Platform<unknown>, () => ({
  python: "/usr/bin/python3",
  settings: { peerFailureGraceMs: 2000 },
  leftovers: localLeftovers,
  slackS: 2,
}));
