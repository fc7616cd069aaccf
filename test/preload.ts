// Loaded before every test file (bunfig.toml): a global afterAll runs once the run's files are done.
import { afterAll } from "bun:test";
import { removeTempDirs } from "./tmp.ts";

afterAll(removeTempDirs);
