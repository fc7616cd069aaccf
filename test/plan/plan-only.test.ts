// `plan --only` shows what `suite --only` runs (plan equals run): the same tests, and the same refusal
// of a name the suite lacks. In-process: showPlan is what `gpucheck plan` calls.
import { expect, test } from "bun:test";
import { PLATFORMS } from "../../cli/platforms.ts";
import { showPlan } from "../../lib/pipeline/plan.ts";
import type { Printer } from "../../lib/pipeline/printer.ts";

function printer(): Printer & { said: { out: string; err: string } } {
  const said = { out: "", err: "" };
  return { said, out: (t) => void (said.out += t), err: (t) => void (said.err += t), stderr: process.stderr, color: false };
}

test("plan cpu-smoke --only inventory,allreduce-gloo: those two tests, in the suite's order", async () => {
  const print = printer();
  expect(await showPlan({ ref: "cpu-smoke", flags: { only: "allreduce-gloo, inventory", json: true }, platforms: PLATFORMS, print })).toBe(0);
  expect(JSON.parse(print.said.out).tests.map((t: { name: string }) => t.name)).toEqual(["inventory", "allreduce-gloo"]);
});

test("plan --only with a name the suite lacks: refused as suite refuses it, naming the suite's tests", async () => {
  await expect(showPlan({ ref: "cpu-smoke", flags: { only: "inventory,nccl" }, platforms: PLATFORMS, print: printer() })).rejects.toThrow(
    'gpucheck: --only names unknown tests: "nccl": the suite has inventory, allreduce-gloo, resnet18-fashionmnist',
  );
});

test("plan --only with --budget: what to drop among the tests chosen, and no quick profile in their place", async () => {
  const print = printer();
  await expect(showPlan({ ref: "h100-8x", flags: { only: "inventory,dcgm-diag", budget: "10m" }, platforms: PLATFORMS, print })).rejects.toThrow(
    "gpucheck: plan: suite h100-8x is expected to take 15m20s (estimated: the sum of the 2 tests' estimates), over --budget 10m00s by 5m20s; to fit, drop dcgm-diag (15m10s)",
  );
  // without --only the same budget names the quick profile
  await expect(showPlan({ ref: "h100-8x", flags: { budget: "20m" }, platforms: PLATFORMS, print })).rejects.toThrow("or run its quick profile h100-8x-quick");
});

test("plan --only one test --budget: its one test's estimate, within the budget", async () => {
  const print = printer();
  expect(await showPlan({ ref: "h100-8x", flags: { only: "inventory", budget: "20m" }, platforms: PLATFORMS, print })).toBe(0);
  expect(print.said.err).toBe("gpucheck: expected total 10s fits --budget 20m00s with 19m50s to spare\n");
  expect(print.said.out).toContain("expected total 10s (estimated: its one test's estimate)");
});
