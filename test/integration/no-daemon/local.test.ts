import { local } from "../../../plugins/local.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { conformance } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";

conformance(local as Platform<unknown>, () => ({
  python: "/usr/bin/python3",
  settings: { peerFailureGraceMs: 2000 },
  leftovers: localLeftovers,
  slackS: 2,
}));
