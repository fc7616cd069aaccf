// A fabric test's output: the reading gpucheck takes where it runs (lib/execute/fabric-run.ts), as
// lib/kinds/fabric/reading.ts reads it. No workload prints it: the texts are infiniband-diags' own.
import { z } from "zod";

const text = (what: string) => z.string().describe(what);

export const fabricResult = z.object({
  topology: z.object({ path: text("fabric.topology as the suite writes it"), text: text("the topology file's text (docs/fabric.md)") }),
  iblinkinfo: text("iblinkinfo's output"),
  ibqueryerrors: text("ibqueryerrors --skip-sl's output"),
  before: z
    .object({ path: text("the earlier sweep's file (fabric-counters-start.txt)"), text: text("its ibqueryerrors output"), at: text("when it was taken, as the findings say it") })
    .nullable(),
  pkeys: z
    .object({
      expected: z.union([z.literal("majority"), z.array(z.number().int())]),
      tables: z.array(z.object({ node: z.string(), port: z.number().int(), lid: z.number().int(), text: text("smpquery pkeys <lid> <port>'s output") })),
    })
    .nullable(),
  counters: z.array(z.string()).optional().describe("the watched error counters"),
  sweeps: z
    .array(
      z.object({ after: text("the test of the run it was taken after"), path: text("its file (logs/<test>/fabric-counters-after.txt)"), text: text("its ibqueryerrors output") }),
    )
    .optional()
    .describe("the sweeps taken after each earlier test of the run, in order: a moved counter is placed in the test it moved during"),
});
