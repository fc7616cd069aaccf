// Rules that need several fields at once, and the platform block.
// Each case: a suite, and exactly what `gpucheck validate` prints for it (exit 2).
import { describe } from "bun:test";
import { rejects } from "./_load.ts";

describe("rules", () => {
  rejects([
    [
      "duplicate test name",
      `
name: s
tests:
  - name: a
    kind: inventory
  - name: b
    kind: inventory
  - name: a
    kind: collective
`,
      `
suite.yaml:7:11: duplicate test name "a": first defined at line 3
    - name: a
            ^
`,
    ],
    [
      "CPU test without ranksPerNode",
      `
name: s
defaults: { gpusPerNode: 0 }
tests:
  - name: a
    kind: collective
`,
      `
suite.yaml:4:5: "ranksPerNode" is required when "gpusPerNode" is 0: how many CPU ranks to start on each node
    - name: a
      ^
`,
    ],
    [
      "more ranks than GPUs, from defaults",
      `
name: s
defaults:
  gpusPerNode: 4
  ranksPerNode: 8
tests:
  - name: a
    kind: collective
`,
      `
suite.yaml:4:17: "ranksPerNode" (8) must not exceed "gpusPerNode" (4): each rank drives one GPU
    ranksPerNode: 8
                  ^
`,
    ],
    [
      "parameter block of another kind",
      `
name: s
tests:
  - name: a
    kind: train
    collective: { op: all_reduce }
`,
      `
suite.yaml:5:5: "collective" does not apply to kind "train"
      collective: { op: all_reduce }
      ^
`,
    ],
    [
      "real data without dataDir",
      `
name: s
tests:
  - name: a
    kind: train
    train: { model: resnet18, data: fashionmnist }
`,
      `
suite.yaml:5:12: data "fashionmnist" needs "dataDir": the directory holding the data set on the nodes, or "@generated" for a small generated set
      train: { model: resnet18, data: fashionmnist }
             ^
`,
    ],
    [
      "dataDir with synthetic data",
      `
name: s
tests:
  - name: a
    kind: train
    train: { dataDir: /data }
`,
      `
suite.yaml:5:14: "dataDir" has no use with data "synthetic"
      train: { dataDir: /data }
               ^
`,
    ],
    [
      "@generated for a data set other than FashionMNIST",
      `
name: s
tests:
  - name: a
    kind: train
    train: { data: cifar10, dataDir: "@generated" }
`,
      `
suite.yaml:5:38: "@generated" is only available for data "fashionmnist", got data "cifar10"
      train: { data: cifar10, dataDir: "@generated" }
                                       ^
`,
    ],
    [
      "transformer-only parameter on a ResNet",
      `
name: s
tests:
  - name: a
    kind: train
    train: { model: resnet50, layers: 4 }
`,
      `
suite.yaml:5:31: "layers" applies to model "transformer" only
      train: { model: resnet50, layers: 4 }
                                ^
`,
    ],
    [
      "warm-up as long as the run",
      `
name: s
tests:
  - name: a
    kind: train
    train: { steps: 10, warmupSteps: 10 }
`,
      `
suite.yaml:5:38: "warmupSteps" (10) must be less than "steps" (10): throughput is measured after warm-up
      train: { steps: 10, warmupSteps: 10 }
                                       ^
`,
    ],
    [
      "width not a multiple of heads",
      `
name: s
tests:
  - name: a
    kind: train
    train: { model: transformer, width: 100, heads: 12 }
`,
      `
suite.yaml:5:41: "width" (100) must be a multiple of "heads" (12)
      train: { model: transformer, width: 100, heads: 12 }
                                          ^
`,
    ],
    [
      "NCCL backend without GPUs",
      `
name: s
tests:
  - name: a
    kind: collective
    gpusPerNode: 0
    ranksPerNode: 2
    collective: { backend: nccl }
`,
      `
suite.yaml:7:28: backend "nccl" needs GPUs: "gpusPerNode" is 0
      collective: { backend: nccl }
                             ^
`,
    ],
    [
      "nccl-tests without GPUs",
      `
name: s
tests:
  - name: a
    kind: collective
    gpusPerNode: 0
    ranksPerNode: 2
    collective: { impl: nccl-tests }
`,
      `
suite.yaml:7:25: impl "nccl-tests" needs GPUs: "gpusPerNode" is 0
      collective: { impl: nccl-tests }
                          ^
`,
    ],
    [
      "ncclTestsDir without impl nccl-tests",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { ncclTestsDir: /opt/nccl-tests/build }
`,
      `
suite.yaml:5:19: "ncclTestsDir" applies to impl "nccl-tests" only
      collective: { ncclTestsDir: /opt/nccl-tests/build }
                    ^
`,
    ],
    [
      "gloo with nccl-tests",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { impl: nccl-tests, backend: gloo }
`,
      `
suite.yaml:5:46: backend "gloo" cannot be used with impl "nccl-tests": nccl-tests always uses NCCL
      collective: { impl: nccl-tests, backend: gloo }
                                               ^
`,
    ],
    [
      "minBytes above maxBytes",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { minBytes: 1GiB, maxBytes: 1MiB }
`,
      `
suite.yaml:5:29: "minBytes" (1GiB) must not exceed "maxBytes" (1MiB)
      collective: { minBytes: 1GiB, maxBytes: 1MiB }
                              ^
`,
    ],
  ]);
});

describe("platform", () => {
  rejects([
    [
      "platform that is not a map",
      `
name: s
platform: slurm
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:2:11: "platform" must be a map such as { type: slurm, slurm: { partition: gpu } }, got "slurm"
  platform: slurm
            ^
`,
    ],
    [
      "unknown platform type",
      `
name: s
platform: { type: slurn }
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:2:19: unknown platform "slurn": did you mean "slurm"?
  platform: { type: slurn }
                    ^
`,
    ],
    [
      "unknown platform block",
      `
name: s
platform:
  kubernetes: {}
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:3:3: unknown platform "kubernetes": expected one of type, local, ssh, slurm, docker, k8s
    kubernetes: {}
    ^
`,
    ],
    [
      "platform settings checked by the plugin's schema",
      `
name: s
platform:
  slurm:
    partiton: gpu
    exclusive: "yes"
tests:
  - { name: inv, kind: inventory }
`,
      `
suite.yaml:4:5: unknown key "partiton": did you mean "partition"?
      partiton: gpu
      ^
suite.yaml:5:16: "exclusive" must be true or false, got "yes"
      exclusive: "yes"
                 ^
`,
    ],
    [
      "k8s maxParallel of 0: no node would ever take its turn",
      `
name: s
platform:
  type: k8s
  k8s:
    image: "x:1"
    maxParallel: 0
tests:
  - { name: inv, kind: inventory, perNode: true }
`,
      `
suite.yaml:6:18: "maxParallel" must be at least 1, got 0
      maxParallel: 0
                   ^
`,
    ],
    [
      "k8s maxParallel that is not a number",
      `
name: s
platform:
  type: k8s
  k8s:
    image: "x:1"
    maxParallel: x
tests:
  - { name: inv, kind: inventory, perNode: true }
`,
      `
suite.yaml:6:18: "maxParallel" must be a number, got "x"
      maxParallel: x
                   ^
`,
    ],
    [
      "k8s maxParallel over 100: the nodes' watches and log streams would queue behind each other",
      `
name: s
platform:
  type: k8s
  k8s:
    image: "x:1"
    maxParallel: 256
tests:
  - { name: inv, kind: inventory, perNode: true }
`,
      `
suite.yaml:6:18: "maxParallel" must be at most 100: each node holds a watch and a log stream open, and gpucheck keeps at most 256 requests in flight
      maxParallel: 256
                   ^
`,
    ],
    [
      "k8s maxParallel that is not a whole number",
      `
name: s
platform:
  type: k8s
  k8s:
    image: "x:1"
    maxParallel: 2.5
tests:
  - { name: inv, kind: inventory, perNode: true }
`,
      `
suite.yaml:6:18: "maxParallel" must be an integer, got 2.5
      maxParallel: 2.5
                   ^
`,
    ],
  ]);
});
