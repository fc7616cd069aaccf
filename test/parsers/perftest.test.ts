import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePerftestBw, parsePerftestLat } from "../../lib/parsers/perftest.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/perftest", name), "utf8");
const writeRoce = fixture("ib_write_bw-report-gbits-postlist-roce.txt");
const sendH100 = fixture("ib_send_bw-report-gbits-h100-nebius-ib.txt");
const readLat = fixture("ib_read_lat-roce-cx5-spiderpool.txt");

test("ib_write_bw --report_gbits over RoCE: tabs in the header and the row, a peak of 0.00 read as not measured", () => {
  const r = parsePerftestBw(writeRoce);
  expect(r).toMatchObject({ test: "RDMA_Write Post List BW Test", device: "ib0", linkType: "Ethernet", bytes: 8, avgGbps: 0.48, peakGbps: null });
  expect(r.columns).toEqual(["#bytes", "#iterations", "BW peak[Gb/sec]", "BW average[Gb/sec]", "MsgRate[Mpps]"]);
  expect(r.values["MsgRate[Mpps]"]).toBe(7.498617);
});

test("ib_send_bw --report_gbits between two H100 nodes over InfiniBand", () => {
  const r = parsePerftestBw(sendH100, "ib_send_bw");
  expect(r).toMatchObject({ test: "Send BW Test", device: "mlx5_0", linkType: "IB", bytes: 65536, avgGbps: 353.53, peakGbps: 357.12 });
});

test("ib_read_lat: libibverbs warnings before and CPU frequency warnings inside the table are skipped", () => {
  const r = parsePerftestLat(readLat);
  expect(r).toMatchObject({ test: "RDMA_Read Latency Test", device: "mlx5_5", linkType: "Ethernet", bytes: 2, typicalUs: 6.74, avgUs: 6.82, maxUs: 20.37, p99Us: 7.15 });
  expect(r.columns).toHaveLength(9);
});

// bad outputs, made from the captures above
test("an output cut after the header names the header it stopped at", () => {
  const cut = sendH100.slice(0, sendH100.indexOf(" 65536"));
  expect(() => parsePerftestBw(cut, "ib_send_bw")).toThrow(
    'the ib_send_bw result table has a header but no result row: the output was cut short after "#bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"',
  );
});

test("a client that never connected: no table, perftest's own complaint quoted", () => {
  const failed = `${sendH100.split("\n").slice(0, 15).join("\n")}\nCouldn't connect to 10.0.0.1:18515\nUnable to open file descriptor for socket connection Unable to init the socket connection\n`;
  expect(() => parsePerftestBw(failed)).toThrow(
    'no ib_write_bw result table (the "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]" header) in its output; it said: Couldn\'t connect to 10.0.0.1:18515 | Unable to open file descriptor for socket connection Unable to init the socket connection',
  );
  expect(() => parsePerftestLat("")).toThrow(
    'no ib_read_lat result table (the "#bytes #iterations t_min[usec] … t_typical[usec] t_avg[usec]" header) in its output; it printed nothing',
  );
  expect(() => parsePerftestLat(readLat.split("\n").slice(0, 10).join("\n"))).toThrow(
    'no ib_read_lat result table (the "#bytes #iterations t_min[usec] … t_typical[usec] t_avg[usec]" header) in its output; its last line: Connection type : RC   Using SRQ      : OFF',
  );
});

test("a row cut in the middle, and a table in MB/sec, are refused with the reason", () => {
  const cutRow = readLat.replace("6.82         0.78      7.15        20.37", "6.82");
  expect(() => parsePerftestLat(cutRow)).toThrow(
    'the ib_read_lat result row "2       1000          6.66           20.37        6.74              6.82" has 6 cells, expected 9 numbers (#bytes, #iterations, t_min[usec], t_max[usec], t_typical[usec], t_avg[usec], t_stdev[usec], 99% percentile[usec], 99.9% percentile[usec])',
  );
  const mb = sendH100.replaceAll("[Gb/sec]", "[MB/sec]");
  expect(() => parsePerftestBw(mb)).toThrow("the ib_write_bw table reports BW average[MB/sec], not BW average[Gb/sec]: run it with --report_gbits");
});
