import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

// Replaced by scripts/build.ts (`bun build --define`); absent when running from the sources.
declare const GPUCHECK_COMMIT: string;
declare const GPUCHECK_BUILT: string;

/** Which sources a binary was built from, and when: what a bug report or a certificate reader needs. */
export const BUILD = {
  commit: typeof GPUCHECK_COMMIT === "string" ? GPUCHECK_COMMIT : "none (run from the sources)",
  built: typeof GPUCHECK_BUILT === "string" ? GPUCHECK_BUILT : "not built",
};

export const VERSION_LINE = `gpucheck ${VERSION} (commit ${BUILD.commit}, built ${BUILD.built})`;
