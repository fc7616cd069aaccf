// Issue 31: the docker platform talks TLS to a tcp:// engine, as the Docker CLI does. Against the
// real dockerd of test/infra/docker.sh, whose listener on tcp://127.0.0.1:12376 requires TLS and a
// client certificate: a test runs there with DOCKER_TLS_VERIFY/DOCKER_CERT_PATH and with the suite's
// own tls files; an engine with another CA's certificate is refused by the handshake. And a plain
// socket server on 127.0.0.1:2376 that records the first bytes of each connection never receives a
// clear-text request: with TLS asked for it gets a TLS ClientHello, without TLS gpucheck refuses
// before connecting, and only with insecureTcp: true does an HTTP request arrive in the clear.
import { afterEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { docker } from "../../../plugins/docker.ts";
import { settings } from "../../../plugins/docker/spec.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { expectCompleted, runScript, scriptTest } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";
import { readInfraEnv } from "../infra-env.ts";
import { tempDir } from "../../tmp.ts";

const enabled = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("docker");
const t = enabled ? test : test.skip;
const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
const infra = () => readInfraEnv("/run/gpucheck-test/docker/env", "docker");
const base = { network: "none", ulimits: false, pull: "never" };
const target = (s: Record<string, unknown>) => ({
  python: "/usr/bin/python3",
  settings: settings.parse({ ...base, ...s }),
  cli: { image: IMAGE },
  leftovers: localLeftovers,
  slackS: 6,
});
const hello = () => scriptTest("tls", "/usr/bin/python3", "print('over tls')", { ranksPerNode: 1 });

const ENV = ["DOCKER_TLS_VERIFY", "DOCKER_TLS", "DOCKER_CERT_PATH", "DOCKER_HOST"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});
const clearEnv = () => ENV.forEach((k) => delete process.env[k]);

/** A TCP server that answers nothing: it keeps the first bytes of each connection and hangs up. */
function recorder(port: number) {
  const first: Buffer[] = [];
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(socket, data) {
        first.push(Buffer.from(data));
        socket.end();
      },
    },
  });
  return { first, stop: () => server.stop(true) };
}
const CLEAR_HTTP = /^(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) \//;

describe("docker over tcp with TLS, against dockerd", () => {
  t(
    "DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH, as for the docker CLI: the test runs on the TLS engine",
    async () => {
      clearEnv();
      process.env.DOCKER_TLS_VERIFY = "1";
      process.env.DOCKER_CERT_PATH = infra().GPUCHECK_DOCKER_CERT_PATH!;
      const { units } = await runScript(docker as Platform<unknown>, target({ hosts: [infra().GPUCHECK_DOCKER_TLS_HOST!] }), hello());
      expectCompleted(units[0]!);
      expect(units[0]!.output).toContain("over tls");
    },
    120_000,
  );

  t(
    "platform.docker.tls names the CA, certificate and key itself",
    async () => {
      clearEnv();
      const dir = infra().GPUCHECK_DOCKER_CERT_PATH!;
      const tls = { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
      const { units } = await runScript(docker as Platform<unknown>, target({ hosts: [infra().GPUCHECK_DOCKER_TLS_HOST!], tls }), hello());
      expectCompleted(units[0]!);
    },
    120_000,
  );

  t(
    "an engine whose certificate another CA signed: the handshake fails, the unit is infra naming the engine",
    async () => {
      clearEnv();
      const other = tempDir("gpucheck-other-ca-");
      execFileSync(
        "openssl",
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=another CA", "-keyout", join(other, "k.pem"), "-out", join(other, "ca.pem")],
        {
          stdio: "ignore",
        },
      );
      const dir = infra().GPUCHECK_DOCKER_CERT_PATH!;
      const url = infra().GPUCHECK_DOCKER_TLS_HOST!;
      const tls = { ca: join(other, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
      const { units } = await runScript(docker as Platform<unknown>, target({ hosts: [url], tls }), hello());
      expect(units[0]!.status).toBe("infra");
      expect(units[0]!.message).toStartWith(`docker engine ${url}: `);
      expect(units[0]!.message).toMatch(/certificate|SELF_SIGNED|UNABLE_TO_VERIFY/i);
    },
    120_000,
  );
});

describe("a plain listener on 127.0.0.1:2376 never receives a clear-text request", () => {
  t(
    "TLS asked for (DOCKER_TLS_VERIFY): its first bytes are a TLS handshake record",
    async () => {
      clearEnv();
      process.env.DOCKER_TLS_VERIFY = "1";
      process.env.DOCKER_CERT_PATH = infra().GPUCHECK_DOCKER_CERT_PATH!;
      const rec = recorder(2376);
      try {
        const { units } = await runScript(docker as Platform<unknown>, target({ hosts: ["tcp://127.0.0.1:2376"] }), hello());
        expect(units[0]!.status).toBe("infra");
        expect(rec.first.length).toBeGreaterThan(0);
        for (const b of rec.first) {
          // a TLS record of type handshake (22), version 3.x: a ClientHello
          expect([b[0], b[1]]).toEqual([0x16, 0x03]);
          expect(CLEAR_HTTP.test(b.toString("latin1"))).toBe(false);
        }
      } finally {
        rec.stop();
      }
    },
    120_000,
  );

  t(
    "nothing said about TLS: refused before any connection, in one line",
    async () => {
      clearEnv();
      const rec = recorder(2376);
      try {
        let error = "";
        await runScript(docker as Platform<unknown>, target({ hosts: ["tcp://127.0.0.1:2376"] }), hello()).then(
          () => {},
          (e: Error) => void (error = e.message),
        );
        expect(error).toBe(
          `docker: engine "tcp://127.0.0.1:2376" would be reached over plain HTTP, which anyone on the network path can read and change (the engine runs containers as root): set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem) as for the docker CLI, or platform.docker.tls: { ca, cert, key }, or accept plain HTTP with platform.docker.insecureTcp: true`,
        );
        expect(rec.first).toEqual([]);
      } finally {
        rec.stop();
      }
    },
    60_000,
  );

  t(
    "insecureTcp: true, said by name: then, and only then, the request arrives in the clear",
    async () => {
      clearEnv();
      const rec = recorder(2376);
      try {
        const { units } = await runScript(docker as Platform<unknown>, target({ hosts: ["tcp://127.0.0.1:2376"], insecureTcp: true }), hello());
        expect(units[0]!.status).toBe("infra");
        expect(rec.first.some((b) => CLEAR_HTTP.test(b.toString("latin1")))).toBe(true);
      } finally {
        rec.stop();
      }
    },
    120_000,
  );
});
