// The test-only pause (lib/core/test-pause.ts) the kill matrix stops gpucheck with: inert unless its
// env names the point, and where it does, a stop at the n-th time with half the file written and the
// previous version whole (lib/report/results.ts writeFileAtomic).
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

const results = join(import.meta.dir, "../../lib/report/results.ts");

/** A process that writes `<dir>/x.json` three times through writeFileAtomic, then prints "done". */
function writer(dir: string, pause: string | undefined) {
  const script = `const { writeFileAtomic } = await import(${JSON.stringify(results)});
for (const n of [1, 2, 3]) writeFileAtomic(${JSON.stringify(join(dir, "x.json"))}, JSON.stringify({ n, pad: "x".repeat(1000) }));
console.log("done");`;
  const env = { ...process.env };
  delete env.GPUCHECK_TEST_PAUSE;
  if (pause !== undefined) env.GPUCHECK_TEST_PAUSE = pause;
  const child = spawn(process.execPath, ["-e", script], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return { child, output: () => out, exited };
}

const state = (pid: number) => /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1];

describe("GPUCHECK_TEST_PAUSE", () => {
  for (const pause of [undefined, "", "write:other.json", "test-start"]) {
    test(`${JSON.stringify(pause)}: inert, every write done`, async () => {
      const dir = tempDir("pause-inert");
      const w = writer(dir, pause);
      await w.exited;
      expect(w.output()).toBe("done\n");
      expect(JSON.parse(readFileSync(join(dir, "x.json"), "utf8")).n).toBe(3);
      expect(readdirSync(dir)).toEqual(["x.json"]);
    });
  }

  test("write:x.json@2 stops the process half-way into the second write; SIGKILL leaves the first whole", async () => {
    const dir = tempDir("pause-write");
    const w = writer(dir, "write:x.json@2");
    const until = Date.now() + 20_000;
    while (!w.output().includes("\n") && Date.now() < until) await Bun.sleep(20);
    expect(w.output()).toBe("gpucheck-test-pause: write:x.json@2\n");
    await Bun.sleep(50);
    expect(state(w.child.pid!)).toBe("T");
    w.child.kill("SIGKILL");
    await w.exited;
    expect(JSON.parse(readFileSync(join(dir, "x.json"), "utf8")).n).toBe(1);
    const tmp = readdirSync(dir).filter((f) => f !== "x.json");
    expect(tmp).toEqual([`.x.json.${w.child.pid}.tmp`]);
    const half = readFileSync(join(dir, tmp[0]!), "utf8");
    const whole = JSON.stringify({ n: 2, pad: "x".repeat(1000) });
    expect(half).toBe(whole.slice(0, Math.ceil(whole.length / 2)));
  });
});
