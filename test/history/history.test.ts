// The node history (lib/history, lib/pipeline/history.ts): a run's figures per node, slot and part
// serial; drift from each part's accepted figure; a swapped GPU seen as a new serial in its slot; the
// store shared by concurrent writers. Runs are built with the real judge (test/fixtures/results/build.ts),
// GPUs named as gemm names them, serials as the inventory reads them from nvidia-smi -q.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ComponentValues, Expectation, ResultsFile } from "../../lib/core/types.ts";
import { figuresOf } from "../../lib/history/figures.ts";
import { renderHistory } from "../../lib/history/render.ts";
import { HistoryStore } from "../../lib/history/store.ts";
import { buildHistory } from "../../lib/history/view.ts";
import { defaultHistoryPath, importLine, importRun, openHistory, showHistory } from "../../lib/pipeline/history.ts";
import { gpucheckRun } from "../e2e/cli.ts";
import { results, test as testResult } from "../fixtures/results/build.ts";
import { tempDir } from "../tmp.ts";

const floor: Expectation = { metric: "gemm_bf16_tflops", unit: "TFLOP/s", min: 700, perComponent: true, text: "gemm_bf16_tflops: min 700 TFLOP/s" };
const gpu = (index: number, tflops: number | null): ComponentValues => ({
  part: { type: "gpu", host: "gpu-01", rank: index, index, uuid: `GPU-0000000${index}-aaaa-bbbb-cccc-dddddddddddd`, pciBusId: `00000000:${18 + index}:00.0` },
  metrics: { gemm_bf16_tflops: tflops },
});

/** One gemm run on gpu-01 (GPUs 0 and 3), at `startedAt`, GPU 3's serial as given. */
function gemmRun(tflops0: number, tflops3: number, serial3: string, startedAt: string): ResultsFile {
  const r = results([
    testResult(
      "gemm",
      "gemm",
      [floor],
      [
        {
          unit: "gpu-01",
          hosts: ["gpu-01"],
          status: "completed",
          startS: 1,
          durationS: 30,
          measurement: { metrics: { gemm_bf16_tflops_min: Math.min(tflops0, tflops3) }, components: [gpu(0, tflops0), gpu(3, tflops3)] },
          tail: "",
        },
      ],
    ),
  ]);
  r.startedAt = startedAt;
  r.inventory[0]!.gpus[0]!.serial = "1652923000100";
  r.inventory[0]!.gpus[3]!.serial = serial3;
  return r;
}

describe("a run's figures", () => {
  test("one row per node, slot and metric: each GPU with its serial and its check, the node's own figure beside them", () => {
    const rows = figuresOf(gemmRun(780.5, 650.25, "1652923000103", "2026-11-01T10:00:00.000Z"), (_, m) => (m === "gemm_bf16_tflops_min" ? "TFLOP/s" : undefined));
    expect(rows.map((f) => [f.node, f.slot, f.serial, f.metric, f.value, f.unit, f.verdict, f.expected])).toEqual([
      ["gpu-01", "GPU 0", "1652923000100", "gemm_bf16_tflops", 780.5, "TFLOP/s", "passed", 700],
      ["gpu-01", "GPU 3", "1652923000103", "gemm_bf16_tflops", 650.25, "TFLOP/s", "failed", 700],
      ["gpu-01", "node", null, "gemm_bf16_tflops_min", 650.25, "TFLOP/s", "recorded", null],
    ]);
    expect(rows[1]!.message).toBe("gpu-01 GPU 3 (GPU-00000003-aaaa-bbbb-cccc-dddddddddddd, 00000000:21:00.0): gemm_bf16_tflops 650.3 TFLOP/s < 700 TFLOP/s expected (-7%)");
    expect(rows[1]!.uuid).toBe("GPU-00000003-aaaa-bbbb-cccc-dddddddddddd");
    expect(rows[1]!.pci).toBe("00000000:21:00.0");
  });

  test("a value that could not be read is kept as null with its reason, and its check is an error", () => {
    const r = gemmRun(780, 780, "s3", "2026-11-01T10:00:00.000Z");
    const unit = r.tests[0]!.units[0]!;
    unit.measurement!.components![1]!.metrics.gemm_bf16_tflops = null;
    unit.measurement!.components![1]!.unmeasured = { gemm_bf16_tflops: "bf16: CUDA error: an illegal memory access was encountered" };
    unit.verdict.checks = [];
    const row = figuresOf(r).find((f) => f.slot === "GPU 3")!;
    expect([row.value, row.verdict, row.message]).toEqual([null, "recorded", "bf16: CUDA error: an illegal memory access was encountered"]);
  });
});

describe("a part's history", () => {
  function store(): HistoryStore {
    return new HistoryStore(join(tempDir("history-"), "h.db"));
  }
  const add = (s: HistoryStore, r: ResultsFile, mode: "acceptance" | "health", sha: string) =>
    s.addRun(
      { resultsSha256: sha, dir: `/runs/${sha}`, suite: r.suite.name, cluster: null, platform: "ssh", mode, startedAt: r.startedAt, endedAt: r.endedAt, outcome: r.outcome },
      figuresOf(r),
    );

  test("drift from the accepted figure run by run, a failure listed, and the same results.json added once", () => {
    const s = store();
    add(s, gemmRun(780, 760, "1652923000103", "2026-11-01T10:00:00.000Z"), "acceptance", "a");
    add(s, gemmRun(781, 741, "1652923000103", "2026-11-08T10:00:00.000Z"), "health", "b");
    add(s, gemmRun(779, 684, "1652923000103", "2026-11-15T10:00:00.000Z"), "health", "c");
    expect(add(s, gemmRun(1, 1, "x", "2026-11-15T10:00:00.000Z"), "health", "c").added).toBe(false);
    expect(s.counts()).toEqual({ runs: 3, figures: 9 });

    const figures = s.figuresFor("1652923000103");
    const h = buildHistory("1652923000103", figures, s.runs([...new Set(figures.map((f) => f.runId))]));
    expect(h.slots).toHaveLength(1);
    const m = h.slots[0]!.metrics[0]!;
    expect(m.reference).toEqual({ run: 1, value: 760, accepted: true });
    expect(m.points.map((p) => [p.run, p.value, p.verdict, p.drift === null ? null : Math.round(p.drift * 1000) / 1000])).toEqual([
      [1, 760, "passed", 0],
      [2, 741, "passed", -0.025],
      [3, 684, "failed", -0.1],
    ]);
    expect(renderHistory(h, "/db/h.db")).toBe(
      [
        "history of 1652923000103 in /db/h.db: 3 runs (1 acceptance, 2 health), 2026-11-01T10:00:00.000Z to 2026-11-15T10:00:00.000Z",
        "",
        "runs:",
        "  #1  2026-11-01T10:00:00.000Z  acceptance  h100-8x  PASSED  /runs/a",
        "  #2  2026-11-08T10:00:00.000Z  health      h100-8x  PASSED  /runs/b",
        "  #3  2026-11-15T10:00:00.000Z  health      h100-8x  FAILED  /runs/c",
        "",
        "gpu-01 GPU 3  serial 1652923000103, GPU-00000003-aaaa-bbbb-cccc-dddddddddddd",
        "  gemm gemm_bf16_tflops: accepted 760 TFLOP/s (#1) · #1 760 · #2 741 (−2.5 %) · #3 684 (−10.0 %) FAILED",
        "",
        "failures (1):",
        "  #3  gpu-01 GPU 3 gemm gemm_bf16_tflops FAILED: gpu-01 GPU 3 (GPU-00000003-aaaa-bbbb-cccc-dddddddddddd, 00000000:21:00.0): gemm_bf16_tflops 684 TFLOP/s < 700 TFLOP/s expected (-2%)",
        "",
      ].join("\n"),
    );
    s.close();
  });

  test("an RMA: a new serial in the same slot is a swap, and the new GPU's drift is from its own first figure", () => {
    const s = store();
    add(s, gemmRun(780, 640, "1652923000103", "2026-11-01T10:00:00.000Z"), "acceptance", "a");
    const after = gemmRun(780, 790, "1652923009999", "2026-11-20T10:00:00.000Z");
    after.inventory[0]!.gpus[3]!.uuid = "GPU-99999999-aaaa-bbbb-cccc-dddddddddddd";
    after.tests[0]!.units[0]!.measurement!.components![1]!.part.uuid = "GPU-99999999-aaaa-bbbb-cccc-dddddddddddd";
    for (const c of after.tests[0]!.units[0]!.verdict.checks) if (c.part?.index === 3) c.part.uuid = "GPU-99999999-aaaa-bbbb-cccc-dddddddddddd";
    add(s, after, "health", "b");
    add(s, gemmRun(780, 774.2, "1652923009999", "2026-11-27T10:00:00.000Z"), "health", "c");
    const figures = s.figuresFor("gpu-01");
    const h = buildHistory("gpu-01", figures, s.runs([...new Set(figures.map((f) => f.runId))]));
    const slot = h.slots.find((x) => x.slot === "GPU 3")!;
    expect(slot.parts.map((p) => [p.serial, p.firstRun, p.lastRun])).toEqual([
      ["1652923000103", 1, 1],
      ["1652923009999", 2, 3],
    ]);
    const text = renderHistory(h, "/db/h.db");
    expect(text).toContain(
      [
        "gpu-01 GPU 3  SWAPPED: 2 parts in this slot (an RMA or a reseat into another slot)",
        "  serial 1652923000103, GPU-00000003-aaaa-bbbb-cccc-dddddddddddd: runs #1",
        "  serial 1652923009999, GPU-99999999-aaaa-bbbb-cccc-dddddddddddd: runs #2 to #3",
        "  gemm gemm_bf16_tflops: first seen (no acceptance run passed this part) 790 TFLOP/s (#2) · #1 640 FAILED · #2 790 · #3 774.2 (−2.0 %)",
      ].join("\n"),
    );
    s.close();
  });

  test("a figure its acceptance run failed is not accepted: the part's first figure is the reference, said so", () => {
    const s = store();
    add(s, gemmRun(780, 640, "1652923000103", "2026-11-01T10:00:00.000Z"), "acceptance", "a");
    add(s, gemmRun(780, 720, "1652923000103", "2026-11-08T10:00:00.000Z"), "acceptance", "b");
    const figures = s.figuresFor("1652923000103");
    const h = buildHistory("1652923000103", figures, s.runs([...new Set(figures.map((f) => f.runId))]));
    expect(h.slots[0]!.metrics[0]!.reference).toEqual({ run: 2, value: 720, accepted: true });
    s.close();
  });

  test("nothing recorded for a name says what a query may be and how to add runs", () => {
    const s = store();
    const h = buildHistory("gpu-77", s.figuresFor("gpu-77"), []);
    expect(renderHistory(h, "/db/h.db")).toBe(
      "history: nothing recorded for \"gpu-77\" in /db/h.db (a node's name, a GPU's serial or UUID; add runs with: gpucheck history import <results-dir>)\n",
    );
    s.close();
  });
});

describe("where the history lives", () => {
  test("the default is the user's data directory", () => {
    expect(defaultHistoryPath({ HOME: "/home/op" })).toBe("/home/op/.local/share/gpucheck/history.db");
    expect(defaultHistoryPath({ HOME: "/home/op", XDG_DATA_HOME: "/data/op" })).toBe("/data/op/gpucheck/history.db");
    // a relative XDG_DATA_HOME is invalid by the XDG spec: ignored
    expect(defaultHistoryPath({ HOME: "/home/op", XDG_DATA_HOME: "data" })).toBe("/home/op/.local/share/gpucheck/history.db");
  });

  test("a history file that is a symbolic link is refused before anything is written", () => {
    const dir = tempDir("history-link-");
    symlinkSync("/etc/passwd", join(dir, "h.db"));
    expect(() => openHistory(join(dir, "h.db"))).toThrow(
      `history "${dir}/h.db" is a symbolic link: gpucheck writes only to a regular file it can trust; remove the link or give --history another path`,
    );
  });

  test("a directory given as the history file is refused", () => {
    const dir = tempDir("history-dir-");
    expect(() => openHistory(dir)).toThrow(`history "${dir}" is not a regular file: give --history the path of a history file (it is created when missing)`);
  });

  test("a default directory others can write to is refused", () => {
    const data = tempDir("history-xdg-");
    mkdirSync(join(data, "gpucheck"));
    chmodSync(join(data, "gpucheck"), 0o777);
    const env = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = data;
    try {
      expect(() => openHistory(undefined)).toThrow(
        `history directory "${data}/gpucheck" is not private (owner uid ${process.getuid!()}, mode 0777): another user could replace the history; make it yours and 0700, or give --history a path`,
      );
    } finally {
      if (env === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = env;
    }
  });
});

describe("through the CLI", () => {
  test("import prints what it added; a second import of the same run adds nothing; show of an unknown name exits 1", async () => {
    const dir = tempDir("history-cli-");
    const db = join(dir, "h.db");
    const run = join(import.meta.dir, "..", "fixtures", "sign", "h100-2node");
    const first = await gpucheckRun(["history", "import", run, "--history", db]);
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe(`history: run #1 (acceptance, suite h100-2node, 2025-03-04T09:00:00.000Z): 15 figures of 3 nodes added to ${db}\n`);
    const again = importRun(run, { history: db, mode: "health" });
    expect(again.added).toBe(false);
    expect(importLine(again)).toBe(`history: ${run} is already in ${db} as run #1 (imported ${again.run.importedAt}): nothing added\n`);
    expect(showHistory("gpu-a01", { history: db }).text).toContain("gpu-a01 (the node's own figures)\n  inventory gpu_count: accepted 8 (#1) · #1 8\n");
    const none = await gpucheckRun(["history", "show", "gpu-zz", "--history", db]);
    expect(none.stdout).toStartWith('history: nothing recorded for "gpu-zz"');
    expect(none.status).toBe(1);
    expect(() => importRun(join(dir, "nope"), { history: db })).toThrow(`"${join(dir, "nope")}": no such results directory`);
  }, 20_000);
});

describe("many writers into one history", () => {
  test("six processes importing five runs each at once: every run is there once, and the file is intact", async () => {
    const dir = tempDir("history-writers-");
    const db = join(dir, "h.db");
    const runs: string[] = [];
    for (let w = 0; w < 6; w++)
      for (let i = 0; i < 5; i++) {
        const run = join(dir, `run-${w}-${i}`);
        mkdirSync(run);
        writeFileSync(join(run, "results.json"), JSON.stringify(gemmRun(780 + w, 760 + i, `serial-${w}`, `2026-11-0${1 + i}T10:0${w}:00.000Z`)));
        runs.push(run);
      }
    // each writer a process of its own, as on many nodes: one import after another, all writers at once
    const script = `import { importRun } from ${JSON.stringify(join(import.meta.dir, "..", "..", "lib", "pipeline", "history.ts"))};
for (const run of process.argv.slice(2)) importRun(run, { history: ${JSON.stringify(db)}, mode: "health" });`;
    writeFileSync(join(dir, "writer.ts"), script);
    const bun = process.execPath;
    const codes = await Promise.all(
      Array.from({ length: 6 }, (_, w) => {
        const child = spawn(bun, [join(dir, "writer.ts"), ...runs.slice(w * 5, w * 5 + 5)], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (d) => (stderr += d));
        return new Promise<string>((resolve) => child.on("close", (code) => resolve(`${code} ${stderr}`)));
      }),
    );
    expect(codes).toEqual(Array(6).fill("0 "));
    const s = new HistoryStore(db);
    expect(s.counts()).toEqual({ runs: 30, figures: 90 });
    expect(s.integrity()).toBe("ok");
    s.close();
    const shown = showHistory("serial-3", { history: db });
    expect(shown.history.runs).toHaveLength(5);
  }, 30_000);
});

test("importRun reads results.json through the one reader, and names an incomplete run", () => {
  const dir = tempDir("history-incomplete-");
  const r = gemmRun(780, 760, "s", "2026-11-01T10:00:00.000Z");
  r.endedAt = null;
  r.complete = false;
  writeFileSync(join(dir, "results.json"), JSON.stringify(r));
  const out = importRun(dir, { history: join(dir, "h.db") });
  expect(out.run.outcome).toBe("unfinished");
  expect(out.figures).toBe(3);
});
