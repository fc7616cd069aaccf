// The suite language: what a suite file may say and what it means when it says nothing.
// The schemas live in ./schema/ (suite.ts: top level and defaults; test.ts: tests; platform.ts:
// the platform block); defaults and cross-field rules are applied by ./load/resolve.ts.
//
// ── Suite reference ──────────────────────────────────────────────────────────────────────────
// name         required; lower-case letters, digits and '-'
// description  cluster   optional text
// extends      a built-in name (h100-8x) or a file path relative to this file; see load/merge.ts
// remove       [test names] of the parent suite to drop (only with extends)
// redact       [env names] whose values every output writes as *** (names holding TOKEN, SECRET,
//              PASSWORD, PASSWD, KEY or CREDENTIAL are redacted without it: lib/core/redact.ts)
// x-…          any top-level key starting with x- is ignored: a place for YAML anchors (&common)
// platform     type: local | ssh | slurm | docker | k8s   (default local), and one settings block
//              per platform name, validated by that plugin (e.g. slurm: { partition: gpu })
// defaults     applied to every test that does not say otherwise:
//   timeout      15m    per test; durations are 500ms, 90s, 10m, 1h30m; a plain number is seconds
//   queueTimeout 30m    how long a scheduler may keep a test pending (slurm, k8s)
//   python       python3  the interpreter on the nodes
//   env          {}     merged under each test's env; numbers and booleans become text as written
//   nodes        1
//   gpusPerNode  8      one HGX/DGX node; 0 means CPU ranks (then ranksPerNode is required)
//   ranksPerNode        = gpusPerNode (a kind may say otherwise: inventory 1)
// tests[]      name (unique), kind: one of lib/kinds/mod.ts KINDS, and optionally
//   description, nodes, gpusPerNode, ranksPerNode, timeout, env, python as above;
//   perNode      from the kind (inventory: true, others false)  run on every node separately
//   pattern      ring | pairwise | bisect | adaptive | each-node (ring; each-node when perNode):
//                how the test covers the run's hosts; lib/load/pattern.ts says what combines
//   pairs        with pairwise: k rounds of random pairs instead of all N−1
//   onFailure    isolate: a failed or hung ring test is bisected to the node(s) behind it
//   screen       { rack1: [gpu01, gpu02, …], … } with adaptive or onFailure: the groups screened
//                first (racks, rails) instead of groups of about √N; together they hold every host
//   <kind>       the kind's own block (collective: {...}, train: {...}, inventory: {...}): its keys
//                and defaults are in the kind's file (lib/kinds/<kind>.ts) and docs/reference/kinds.md
//   expect       { <metric>[@<size>]: { min, max, baseline } }  the metrics of each kind are in its
//     file (lib/kinds/), the telemetry's in lib/core/metrics.ts. min/max take the metric's unit or a compatible one ("0.4 TB/s", "2790 img/s");
//     a plain number is in the metric's own unit. @<size> picks one message size of the sweep
//     (busbw@1GiB); without it per-size metrics are judged at the largest size. baseline: 95%
//     requires 95 % of an earlier run's value (--baseline): measured ≥ 0.95 × baseline for
//     higher-is-better metrics, measured ≤ baseline / 0.95 for lower-is-better ones.
//     transport: { require: [NET/IB, GDRDMA], forbid: [NET/Socket] }  (collective tests on NCCL):
//     the transports NCCL must have used and must not have; names in TRANSPORT_TOKENS (lib/core/metrics.ts).
// ─────────────────────────────────────────────────────────────────────────────────────────────
export const SUITE_DEFAULTS = {
  timeoutMs: 15 * 60_000,
  queueTimeoutMs: 30 * 60_000,
  python: "python3",
  nodes: 1,
  gpusPerNode: 8,
};

export { testSchema, type TestInput, type ThresholdInput } from "./schema/test.ts";
export { suiteSchema, defaultsSchema, type DefaultsInput, SUITE_NAME } from "./schema/suite.ts";
export { checkPlatform, DEFAULT_PLATFORM } from "./schema/platform.ts";
export { problemsFromIssues, type Problem, type PathKey } from "../core/issues.ts";
