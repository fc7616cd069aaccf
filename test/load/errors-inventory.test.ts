// Bad `inventory:` blocks and inventory thresholds: exactly what `gpucheck validate` prints (exit 2).
import { describe } from "bun:test";
import { rejects } from "./_load.ts";

describe("inventory block", () => {
  rejects([
    [
      "an HCA name with a blank",
      `
name: s
tests:
  - name: a
    kind: inventory
    inventory:
      hcas: [mlx5_0, "mlx5 3"]
`,
      `
suite.yaml:6:22: invalid HCA name "mlx5 3": expected a device name such as mlx5_0, or mlx5_0:1 for one port
        hcas: [mlx5_0, "mlx5 3"]
                       ^
`,
    ],
    [
      "an empty HCA list",
      `
name: s
tests:
  - name: a
    kind: inventory
    inventory: { hcas: [] }
`,
      `
suite.yaml:5:24: "hcas" must be a list of HCA names such as [mlx5_0, mlx5_3] or "mlx5_0,mlx5_3", got an empty list
      inventory: { hcas: [] }
                         ^
`,
    ],
    [
      "a negative link count",
      `
name: s
tests:
  - name: a
    kind: inventory
    inventory: { nvlinksPerGpu: -1 }
`,
      `
suite.yaml:5:33: "nvlinksPerGpu" must be a non-negative integer, got -1
      inventory: { nvlinksPerGpu: -1 }
                                  ^
`,
    ],
    [
      "a config field with a typo, and a value that is a list",
      `
name: s
tests:
  - name: a
    kind: inventory
    inventory:
      config: { drivr: "550.90.07", power_limit_w: [700] }
`,
      `
suite.yaml:6:17: unknown config field "drivr": did you mean "driver"?
        config: { drivr: "550.90.07", power_limit_w: [700] }
                  ^
suite.yaml:6:52: "power_limit_w" must be a string or a number, got a list
        config: { drivr: "550.90.07", power_limit_w: [700] }
                                                     ^
`,
    ],
    [
      "an unknown key",
      `
name: s
tests:
  - name: a
    kind: inventory
    inventory: { colour: blue }
`,
      `
suite.yaml:5:18: unknown key "colour": expected one of hcas, nvlinksPerGpu, config, nvlinkDomain, baseline
      inventory: { colour: blue }
                   ^
`,
    ],
    [
      "an NVLink domain that is neither node nor rack",
      `
name: s
tests:
  - name: a
    kind: inventory
    inventory: { nvlinkDomain: nvl72 }
`,
      `
suite.yaml:5:32: invalid nvlinkDomain "nvl72": expected one of node, rack
      inventory: { nvlinkDomain: nvl72 }
                                 ^
`,
    ],
    [
      "an inventory block on a collective test",
      `
name: s
tests:
  - name: b
    kind: collective
    inventory: { hcas: mlx5_0 }
`,
      `
suite.yaml:5:5: "inventory" does not apply to kind "collective"
      inventory: { hcas: mlx5_0 }
      ^
`,
    ],
    [
      "a port rate in a unit that is not a rate",
      `
name: s
tests:
  - name: c
    kind: inventory
    expect:
      ib_port_rate: { min: 400 GB/sec }
`,
      `
suite.yaml:6:28: invalid value "400 GB/sec" for metric "ib_port_rate": expected a number in Gb/s, Gbit/s, Gbps, Mb/s, Tb/s, GB/s
        ib_port_rate: { min: 400 GB/sec }
                             ^
`,
    ],
  ]);
});
