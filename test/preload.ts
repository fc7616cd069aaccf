// Loaded before every test file (bunfig.toml): a global afterAll runs once the run's files are done.
import { afterAll } from "bun:test";
import { removeTempDirs } from "./tmp.ts";
// the platform registry, as the cli hands it to the stages before any command runs
import "../cli/platforms.ts";

afterAll(removeTempDirs);
