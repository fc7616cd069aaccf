// The hostlist compressor the 1,000-node report and certificate name nodes with: exact strings for
// the cases a person reads, and the property that matters for a certificate: expanding the ranges
// gives back exactly the input set, no node more, no node less.
import { describe, expect, test as it } from "bun:test";
import { compressHostlist, expandHostlist } from "../../lib/core/hostlist.ts";

const pad = (n: number, w: number) => String(n).padStart(w, "0");
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe("compressHostlist", () => {
  it("writes exact strings", () => {
    expect(compressHostlist([])).toBe("");
    expect(compressHostlist(["gpu001"])).toBe("gpu001");
    expect(compressHostlist(range(1, 998).map((n) => `gpu${pad(n, 3)}`))).toBe("gpu[001-998]");
    expect(compressHostlist(["gpu003", "gpu001", "gpu002", "gpu005", "gpu007", "gpu008"])).toBe("gpu[001-003,005,007-008]");
    expect(compressHostlist(["node8", "node9", "node10", "node12"])).toBe("node[8-10,12]");
    expect(compressHostlist(["gpu098", "gpu099", "gpu100", "gpu101"])).toBe("gpu[098-101]");
    expect(compressHostlist(["gpu01-ib", "gpu02-ib", "gpu03-ib", "gpu01", "gpu02"])).toBe("gpu[01-02],gpu[01-03]-ib");
    expect(compressHostlist(["a1", "b2", "a2", "login", "b3"])).toBe("a[1-2],b[2-3],login");
    expect(compressHostlist(["rack1-gpu01", "rack1-gpu02", "rack2-gpu01"])).toBe("rack1-gpu[01-02],rack2-gpu01");
    expect(compressHostlist(["gpu01", "gpu01", "gpu02"])).toBe("gpu[01-02]");
    // zero-padded and unpadded numbers of one prefix are different names
    expect(compressHostlist(["n01", "n1", "n2", "n02"])).toBe("n[1-2],n[01-02]");
  });

  it("expands what it wrote", () => {
    expect(expandHostlist("gpu[098-101],login,n[8-10]-ib")).toEqual(["gpu098", "gpu099", "gpu100", "gpu101", "login", "n8-ib", "n9-ib", "n10-ib"]);
  });

  it("property: expanding the ranges gives back exactly the input set (5,000 random sets)", () => {
    let seed = 17;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const prefixes = ["gpu", "node-", "rack3-gpu", "a", ""];
    const suffixes = ["", "-ib", ".cluster", "x"];
    for (let run = 0; run < 5000; run++) {
      const names = new Set<string>();
      const count = rand(40);
      for (let i = 0; i < count; i++) {
        const width = [0, 2, 3, 4][rand(4)];
        const n = rand(width === 2 ? 100 : 1200);
        const roll = rand(20);
        names.add(roll === 0 ? `login${["", "-a", "b"][rand(3)]}` : `${prefixes[rand(prefixes.length)]}${width ? pad(n, width) : n}${suffixes[rand(suffixes.length)]}`);
      }
      const list = compressHostlist(names);
      const back = expandHostlist(list);
      expect(back.length).toBe(names.size);
      expect(new Set(back)).toEqual(names);
    }
  });

  it("1,000 nodes with three holes are one line", () => {
    const names = range(1, 1000)
      .filter((n) => ![17, 500, 999].includes(n))
      .map((n) => `gpu${pad(n, 4)}`);
    expect(compressHostlist(names)).toBe("gpu[0001-0016,0018-0499,0501-0998,1000]");
  });
});
