// The -J file reader: what makes printf-written JSON parseable, and what is not an nccl-tests file.
import { describe, expect, test } from "bun:test";
import { ParseError } from "../../lib/core/errors.ts";
import { closeTruncated, nullBareNonFinite } from "../../lib/parsers/nccl-json-repair.ts";
import { parseNcclJson } from "../../lib/parsers/nccl-json.ts";

describe("nullBareNonFinite", () => {
  test.each([
    ['{"alg_bw":inf,"bus_bw":-inf}', '{"alg_bw":null,"bus_bw":null}'],
    ['{"a":[inf,1.000000,nan]}', '{"a":[null,1.000000,null]}'],
    ['{"env":["X=inf","Y=-nan"],"t":-1.5}', '{"env":["X=inf","Y=-nan"],"t":-1.5}'],
    ['{"s":"quote \\" inf","v":null}', '{"s":"quote \\" inf","v":null}'],
  ])("%s", (input, output) => {
    expect(nullBareNonFinite(input)).toBe(output);
  });
});

describe("closeTruncated", () => {
  test("a complete document is unchanged", () => {
    expect(closeTruncated('{"a":[1,2]}')).toBe('{"a":[1,2]}');
  });
  test("cut inside a row: the rows before it are kept", () => {
    const cut = '{"version":3,"results":[{"size":8},{"size":16,"out_of_place":{"time":1.5},"in_place":{"ti';
    expect(JSON.parse(closeTruncated(cut)!)).toEqual({ version: 3, results: [{ size: 8 }, { size: 16, out_of_place: { time: 1.5 } }] });
  });
  test("cut inside a string that holds brackets", () => {
    expect(JSON.parse(closeTruncated('{"args":["-e","[x]"],"env":["A={"')!)).toEqual({ args: ["-e", "[x]"] });
  });
  test("nothing complete", () => {
    expect(closeTruncated('{"version":3,"start_time":"2026')).toBeNull();
  });
});

describe("parseNcclJson", () => {
  test.each([
    ["JSON from another tool", '{"loss":0.25}'],
    ["an array", "[1,2,3]"],
    ["not JSON at all", "{ this is a log line"],
  ])("%s is not an nccl-tests file", (_what, text) => {
    expect(parseNcclJson(text)).toBeNull();
  });

  test("a row cut before its in_place is not a result; numbers given as strings are not numbers", () => {
    const r = parseNcclJson(
      '{"nccl_version":22907,"results":[{"size":8,"count":2,"type":"float","redop":"sum","root":"    -1","out_of_place":{"time":"12.5","alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0}}]}',
    );
    expect(r?.rows).toEqual([]);
    expect(r?.complete).toBe(false);
  });

  test("root given as a number (a future writer) and unknown redop", () => {
    const r = parseNcclJson(
      '{"nccl_version":22907,"results":[{"size":8,"count":2,"type":"float","root":3,"out_of_place":null,"in_place":{"time":1.0,"alg_bw":0.01,"bus_bw":0.01,"nwrong":0}}]}',
    );
    expect(r?.rows).toEqual([{ size: 8, count: 2, type: "float", redop: null, root: 3, outOfPlace: null, inPlace: { timeUs: 1, algbwGBs: 0.01, busbwGBs: 0.01, wrong: 0 } }]);
  });

  test("an nccl-tests file broken beyond repair is a ParseError", () => {
    expect(() => parseNcclJson('{"version":3,"nccl_version":22907,"results":[{"size":8,,}]}')).toThrow(
      new ParseError("unreadable nccl-tests JSON file: JSON Parse error: Property name must be a string literal"),
    );
  });
});
