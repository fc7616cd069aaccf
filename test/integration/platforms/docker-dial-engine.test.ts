// The command transport under dockerode against the real local engine (test/infra/docker.sh):
// every call the platform makes works through `docker system dial-stdio`, attach's connection
// upgrade included. Runs when GPUCHECK_INFRA lists docker (npm run test:integration).
import { describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { tarFiles } from "../../../plugins/_shared/tar.ts";
import { commandDialer } from "../../../plugins/docker/dial.ts";

const INFRA = (process.env.GPUCHECK_INFRA ?? "").split(",");
const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
const describeFailure = (code: number | null, signal: string | null, stderr: string) => `exit ${code ?? signal}: ${stderr.trim()}`;
const over = (argv: string[]) => {
  const dialer = commandDialer(argv, describeFailure);
  return { dialer, d: new Docker({ protocol: "http", host: "docker", port: 80, agent: dialer.agent } as Docker.DockerOptions) };
};

describe("docker command transport", () => {
  (INFRA.includes("docker") ? test : test.skip)(
    "through `docker system dial-stdio` to the local engine: create, put_archive, attach, start, wait, remove",
    async () => {
      const { dialer, d } = over(["docker", "system", "dial-stdio"]);
      expect(String(await d.ping())).toBe("OK");
      const c = await d.createContainer({
        Image: IMAGE,
        Cmd: ["/usr/bin/python3", "-c", "import sys; print(open('/opt/t/hello').read()); sys.stderr.write('to stderr\\n'); sys.exit(7)"],
        HostConfig: { NetworkMode: "none" },
        Labels: { "gpucheck.test": "dial" },
      });
      try {
        await c.putArchive(Buffer.from(tarFiles(new Map([["opt/t/hello", "hello"]]))), { path: "/" });
        const stream = await c.attach({ stream: true, stdout: true, stderr: true });
        const out = new PassThrough();
        const err = new PassThrough();
        let stdout = "";
        let stderr = "";
        out.on("data", (b) => (stdout += b));
        err.on("data", (b) => (stderr += b));
        d.modem.demuxStream(stream, out, err);
        const ended = new Promise((r) => stream.once("end", r));
        await c.start();
        expect(await c.wait()).toMatchObject({ StatusCode: 7 });
        await ended;
        expect(stdout).toBe("hello\n");
        expect(stderr).toBe("to stderr\n");
      } finally {
        await c.remove({ force: true });
        dialer.close();
      }
    },
    60_000,
  );
});
