// The `yaml` package, through its ES-module build. Its Node build is CommonJS: some eighty modules,
// each wrapped and run at start, plus `buffer` and `process`, which cost a compiled gpucheck 13 ms of
// CPU at every start of a command that loads a suite, where the ES-module build costs 1.5 ms
// (BENCHMARKS.md, "Start-up: issue 12 item 10"). Both are built from the same sources; the Node build
// differs only in reading `!!binary` into a Buffer (gpucheck has no binary field) and warning through
// process.emitWarning. The package's exports map does not name this build, hence the path.
// @ts-expect-error: the ES-module build ships no declarations of its own; its API is the one typed below
import * as esm from "../../node_modules/yaml/browser/dist/index.js";

const yaml = esm as typeof import("yaml");

export type Document = import("yaml").Document;
export type LineCounter = import("yaml").LineCounter;
export type { Node, Pair } from "yaml";
export const { Document, LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseAllDocuments, parseDocument, stringify, visit } = yaml;
