// Loaded before every test file (bunfig.toml): a global afterAll runs once the run's files are done.
import { afterAll } from "bun:test";
import { removeTempDirs } from "./tmp.ts";
// the platform registry, as a command's flow (lib/pipeline) hands it to the stages before loading a suite
import { registerPlatforms } from "../lib/core/platform.ts";
import { PLATFORMS } from "../cli/platforms.ts";

registerPlatforms(PLATFORMS);

afterAll(removeTempDirs);
