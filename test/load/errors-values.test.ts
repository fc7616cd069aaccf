// Bad values: sizes, durations, environment, thresholds.
// Each case: a suite, and exactly what `gpucheck validate` prints for it (exit 2).
import { describe } from "bun:test";
import { rejects } from "./_load.ts";

describe("units", () => {
  rejects([
    [
      "size with a bad unit",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { maxBytes: 8 GiBs }
`,
      `
suite.yaml:5:29: invalid size "8 GiBs": expected a number of bytes or a number with B, KiB, MiB, GiB, TiB (binary, also K, M, G, T) or KB, MB, GB, TB (decimal)
      collective: { maxBytes: 8 GiBs }
                              ^
`,
    ],
    [
      "zero size",
      `
name: s
tests:
  - name: a
    kind: collective
    collective:
      maxBytes: 0
`,
      `
suite.yaml:6:17: "maxBytes" must be a positive size, got 0
        maxBytes: 0
                  ^
`,
    ],
    [
      "size that is not whole bytes",
      `
name: s
tests:
  - name: a
    kind: collective
    collective:
      minBytes: 1.5B
`,
      `
suite.yaml:6:17: invalid size "1.5B": not a whole number of bytes
        minBytes: 1.5B
                  ^
`,
    ],
    [
      "duration with a bad unit",
      `
name: s
tests:
  - name: a
    kind: collective
    timeout: 10 mins
`,
      `
suite.yaml:5:14: invalid duration "10 mins": expected a number with ms, s, m or h (e.g. 90s, 10m, 1h30m); a plain number is seconds
      timeout: 10 mins
               ^
`,
    ],
    [
      "zero duration",
      `
name: s
tests:
  - name: a
    kind: collective
    timeout: 0s
`,
      `
suite.yaml:5:14: "timeout" must be a positive duration, got "0s"
      timeout: 0s
               ^
`,
    ],
    [
      "empty duration points at its key",
      `
name: s
tests:
  - name: a
    kind: collective
    timeout:
`,
      `
suite.yaml:5:5: "timeout" must be a duration such as 90s or 10m, got nothing
      timeout:
      ^
`,
    ],
    [
      "environment variable with an invalid name",
      `
name: s
tests:
  - name: a
    kind: inventory
    env: { NCCL-DEBUG: INFO }
`,
      `
suite.yaml:5:12: invalid environment variable name "NCCL-DEBUG": expected letters, digits and _, not starting with a digit
      env: { NCCL-DEBUG: INFO }
             ^
`,
    ],
    [
      "environment values that are a map and nothing",
      `
name: s
tests:
  - name: a
    kind: inventory
    env:
      NCCL_DEBUG: { level: INFO }
      EMPTY:
`,
      `
suite.yaml:6:19: "NCCL_DEBUG" must be a string, got a map
        NCCL_DEBUG: { level: INFO }
                    ^
suite.yaml:7:7: "EMPTY" must be a string, got nothing
        EMPTY:
        ^
`,
    ],
    [
      "env that is not a map",
      `
name: s
tests:
  - name: a
    kind: inventory
    env: NCCL_DEBUG=INFO
`,
      `
suite.yaml:5:10: "env" must be a map of variable names to values, got "NCCL_DEBUG=INFO"
      env: NCCL_DEBUG=INFO
           ^
`,
    ],
  ]);
});

describe("thresholds", () => {
  rejects([
    [
      "metric of another kind",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      samples_per_s: { min: 100 }
`,
      `
suite.yaml:6:7: metric "samples_per_s" is not produced by kind "collective": expected one of busbw, algbw, time_us, busbw_peak, busbw_avg, wrong, out_of_bounds, gpu_temp_max, gpu_power_max, gpu_util_mean, xid_hardware, xid_application, xid_events, throttle_hw, throttle_sw_thermal, throttle_sw_power_cap, throttle_events, sm_clock_min_mhz, ib_link_downed, ib_port_errors, nvlink_errors, rail_busbw, transport
        samples_per_s: { min: 100 }
        ^
`,
    ],
    [
      "telemetry health metrics: unit, value and name",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      sm_clock_min_mhz: { min: fast }
      throttle_hw: { max: 0 MHz }
      nvlink_errorz: { max: 0 }
`,
      `
suite.yaml:6:32: invalid value "fast" for metric "sm_clock_min_mhz": expected a number in MHz, GHz
        sm_clock_min_mhz: { min: fast }
                                 ^
suite.yaml:7:27: invalid value "0 MHz" for metric "throttle_hw": expected a number
        throttle_hw: { max: 0 MHz }
                            ^
suite.yaml:8:7: unknown metric "nvlink_errorz" for kind "collective": did you mean "nvlink_errors"?
        nvlink_errorz: { max: 0 }
        ^
`,
    ],
    [
      "misspelt metric",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbww: { min: 1 }
`,
      `
suite.yaml:6:7: unknown metric "busbww" for kind "collective": did you mean "busbw"?
        busbww: { min: 1 }
        ^
`,
    ],
    [
      "threshold with an unknown unit",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: { min: 400 GBs }
`,
      `
suite.yaml:6:21: invalid value "400 GBs" for metric "busbw": expected a number in GB/s, B/s, KB/s, MB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s, Mb/s, Gb/s, Tb/s, Gbit/s, Gbps
        busbw: { min: 400 GBs }
                      ^
`,
    ],
    [
      "threshold at a size the sweep never measures",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw@1GB: { min: 100 GB/s }
`,
      `
suite.yaml:6:7: size 1GB in "busbw@1GB" is not measured by the sweep 8B…8GiB by factor 2: nearest sizes are 512MiB and 1GiB
        busbw@1GB: { min: 100 GB/s }
        ^
`,
    ],
    [
      "size on a metric that has no sizes",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      wrong@1GiB: { max: 0 }
`,
      `
suite.yaml:6:7: metric "wrong" is not measured per message size: remove "@1GiB"
        wrong@1GiB: { max: 0 }
        ^
`,
    ],
    [
      "unparsable size in a metric key",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw@huge: { min: 1 }
`,
      `
suite.yaml:6:7: invalid size "huge" in "busbw@huge": expected a number of bytes or a number with B, KiB, MiB, GiB, TiB (binary, also K, M, G, T) or KB, MB, GB, TB (decimal)
        busbw@huge: { min: 1 }
        ^
`,
    ],
    [
      "min above max, in different units",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: { min: 0.5 TB/s, max: 400 GB/s }
`,
      `
suite.yaml:6:36: "max" (400 GB/s) must not be below "min" (0.5 TB/s)
        busbw: { min: 0.5 TB/s, max: 400 GB/s }
                                     ^
`,
    ],
    [
      "threshold without bounds",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: {}
`,
      `
suite.yaml:6:7: threshold on "busbw" needs "min", "max" or "baseline"
        busbw: {}
        ^
`,
    ],
    [
      "threshold value that is a list",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: { min: [1] }
`,
      `
suite.yaml:6:21: "min" must be a number, or a number with its unit such as "400 GB/s", got a list
        busbw: { min: [1] }
                      ^
`,
    ],
    [
      "threshold written as a bare value",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: 400 GB/s
`,
      `
suite.yaml:6:14: "busbw" must be a map such as { min: 400 GB/s }, got "400 GB/s"
        busbw: 400 GB/s
               ^
`,
    ],
    [
      "expect that is a list",
      `
name: s
tests:
  - name: a
    kind: collective
    expect: [busbw]
`,
      `
suite.yaml:5:13: "expect" must be a map of metric names to thresholds, got a list
      expect: [busbw]
              ^
`,
    ],
    [
      "baseline that is neither a percentage nor a ratio",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      samples_per_s: { baseline: 95 }
`,
      `
suite.yaml:6:34: "baseline" must be a percentage of the baseline such as 95%, or a ratio such as 0.95, got 95
        samples_per_s: { baseline: 95 }
                                   ^
`,
    ],
    [
      "transformer-only metric on a ResNet",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      tokens_per_s: { min: 1 }
`,
      `
suite.yaml:6:7: metric "tokens_per_s" is only produced by model "transformer", not "resnet18"
        tokens_per_s: { min: 1 }
        ^
`,
    ],
    [
      "accuracy on synthetic data",
      `
name: s
tests:
  - name: a
    kind: train
    expect:
      accuracy: { min: 50% }
`,
      `
suite.yaml:6:7: metric "accuracy" needs a real data set: data is "synthetic"
        accuracy: { min: 50% }
        ^
`,
    ],
  ]);
});

describe("thresholds and sweeps that cannot mean what they say", () => {
  rejects([
    [
      "negative bounds",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: { min: -400 GB/s }
      wrong: { max: -1 }
`,
      `
suite.yaml:6:21: "min" must not be negative: busbw is never below 0, got -400 GB/s
        busbw: { min: -400 GB/s }
                      ^
suite.yaml:7:21: "max" must not be negative: wrong is never below 0, got -1
        wrong: { max: -1 }
                      ^
`,
    ],
    [
      "a floor of zero",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      busbw: { min: 0 }
`,
      `
suite.yaml:6:21: "min: 0" is always met: busbw is never below 0; give a positive floor, or "max: 0" for a count that must stay 0
        busbw: { min: 0 }
                      ^
`,
    ],
    [
      "a ceiling of zero on a time",
      `
name: s
tests:
  - name: a
    kind: collective
    expect:
      time_us: { max: 0 }
`,
      `
suite.yaml:6:23: "max: 0" can never be met: time_us (us) is above 0 whenever it is measured, so every run would fail; give the largest value you accept
        time_us: { max: 0 }
                        ^
`,
    ],
    [
      "a decimal maxBytes the binary sweep never reaches",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { minBytes: 8B, maxBytes: 8GB }
`,
      `
suite.yaml:5:43: "maxBytes" (8GB) is not a size of the sweep from 8B by factor 2: it would stop at 4GiB (nearest sizes 4GiB and 8GiB); 8GB is 8,000,000,000 bytes: did you mean 8GiB?
      collective: { minBytes: 8B, maxBytes: 8GB }
                                            ^
`,
    ],
    [
      "a maxBytes off the sweep by factor 4",
      `
name: s
tests:
  - name: a
    kind: collective
    collective: { minBytes: 1KiB, maxBytes: 2MiB, factor: 4 }
`,
      `
suite.yaml:5:45: "maxBytes" (2MiB) is not a size of the sweep from 1KiB by factor 4: it would stop at 1MiB (nearest sizes 1MiB and 4MiB)
      collective: { minBytes: 1KiB, maxBytes: 2MiB, factor: 4 }
                                              ^
`,
    ],
  ]);
});

describe("defaults.eachNode", () => {
  rejects([
    [
      "eachNode that is not true or false",
      `
name: s
defaults:
  eachNode: 1
tests:
  - name: a
    kind: collective
`,
      `
suite.yaml:3:13: "eachNode" must be true or false, got 1
    eachNode: 1
              ^
`,
    ],
    [
      "eachNode misspelt",
      `
name: s
defaults:
  eachnode: true
tests:
  - name: a
    kind: collective
`,
      `
suite.yaml:3:3: unknown key "eachnode": did you mean "eachNode"?
    eachnode: true
    ^
`,
    ],
  ]);
});
