// Problems with the file itself have no line to point at: one line, prefixed like every other
// fatal error of the CLI.
import { expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../../lib/core/errors.ts";
import { loadSuite } from "../../lib/load/mod.ts";
import { workdir } from "./_load.ts";

async function message(ref: string, files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const err = await loadSuite(ref, { cwd: workdir(files) }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SuiteError);
  expect((err as SuiteError).diagnostics).toEqual([]);
  return (err as SuiteError).render();
}

test("missing file", async () => {
  expect(await message("./nope.yaml")).toBe("gpucheck: suite file not found: ./nope.yaml");
});

test("missing file given without ./ is shown with it", async () => {
  expect(await message("suites/nope.yaml")).toBe("gpucheck: suite file not found: ./suites/nope.yaml");
});

test("a name that is neither a built-in nor a file, with the close built-in", async () => {
  expect(await message("h100-9x")).toBe('gpucheck: no built-in suite "h100-9x" and no file ./h100-9x: did you mean "h100-8x"?');
});

test("builtin: prefix with an unknown name", async () => {
  expect(await message("builtin:nope.yaml")).toBe('gpucheck: no built-in suite "nope"');
});

test("a directory", async () => {
  expect(await message("sub", { "sub/x.yaml": "name: s\n" })).toBe(
    `gpucheck: cannot read the suite file "./sub": it is a directory (EISDIR): give the path of a file, or choose another suite file`,
  );
  expect(await message(".")).toBe(`gpucheck: cannot read the suite file ".": it is a directory (EISDIR): give the path of a file, or choose another suite file`);
});

test("an empty file, a blank one, and one with only comments", async () => {
  expect(await message("e.yaml", { "e.yaml": "" })).toBe("gpucheck: suite file is empty: ./e.yaml");
  expect(await message("b.yaml", { "b.yaml": "  \n\n" })).toBe("gpucheck: suite file is empty: ./b.yaml");
  expect(await message("c.yaml", { "c.yaml": "# only a comment\n" })).toBe("gpucheck: suite file is empty: ./c.yaml");
});

test("a binary file with a NUL byte", async () => {
  const bytes = new Uint8Array([0x6e, 0x61, 0x00, 0x0a]);
  expect(await message("n.yaml", { "n.yaml": bytes })).toBe("gpucheck: suite file is binary, not YAML text: ./n.yaml (NUL byte at offset 2)");
});

test("a file that is not UTF-8", async () => {
  const bytes = new Uint8Array([0x6e, 0x3a, 0x20, 0xc3, 0x28, 0x0a]);
  expect(await message("u.yaml", { "u.yaml": bytes })).toBe("gpucheck: suite file is binary, not YAML text: ./u.yaml (not valid UTF-8)");
});

test.skipIf(process.getuid?.() === 0)("an unreadable file", async () => {
  const dir = workdir({ "secret.yaml": "name: s\n" });
  chmodSync(join(dir, "secret.yaml"), 0o000);
  const err = (await loadSuite("secret.yaml", { cwd: dir }).catch((e: unknown) => e)) as SuiteError;
  expect(err.render()).toBe(
    `gpucheck: cannot read the suite file "./secret.yaml": permission denied (EACCES): make it readable by uid ${process.getuid?.()} (ls -ld "./secret.yaml"), or choose another suite file`,
  );
});

test("an absolute path is shown as given", async () => {
  const dir = workdir();
  const err = (await loadSuite(join(dir, "none.yaml")).catch((e: unknown) => e)) as SuiteError;
  expect(err.render()).toBe(`gpucheck: suite file not found: ${join(dir, "none.yaml")}`);
});
