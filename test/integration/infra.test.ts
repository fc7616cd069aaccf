// The integration tier runs against real daemons started by scripts/test-integration.sh, which
// lists them in GPUCHECK_INFRA. The daemon tests skip when their name is missing from it, so
// without this check `bun test test/integration` alone would pass having tested nothing.
import { expect, test } from "bun:test";

const REQUIRED = ["ssh", "slurm", "docker", "netns"];

test(`GPUCHECK_INFRA lists ${REQUIRED.join(", ")} (run the tier with npm run test:integration)`, () => {
  const listed = (process.env.GPUCHECK_INFRA ?? "").split(",").filter(Boolean);
  expect(
    REQUIRED.filter((name) => !listed.includes(name)),
    `GPUCHECK_INFRA="${process.env.GPUCHECK_INFRA ?? ""}"`,
  ).toEqual([]);
});
