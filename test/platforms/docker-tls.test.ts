// tcp:// engines: TLS as the Docker CLI reaches them (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, or the
// suite's platform.docker.tls), plain HTTP only with platform.docker.insecureTcp, anything else refused
// before anything runs. Pure; the real engine over TLS is test/integration/platforms/docker-tls.test.ts.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Suite } from "../../lib/core/types.ts";
import { PlatformError, SuiteError } from "../../lib/core/errors.ts";
import { docker } from "../../plugins/docker.ts";
import { settings } from "../../plugins/docker/spec.ts";
import { tcpTls, tlsOptions } from "../../plugins/docker/tls.ts";
import { fakeSuite, scriptTest } from "./conformance.ts";
import { tempDir } from "../tmp.ts";
import { problems } from "../load/_load.ts";

const URL_ = "tcp://10.0.0.5:2376";
const REFUSED = `gpucheck: docker: engine "${URL_}" would be reached over plain HTTP, which anyone on the network path can read and change (the engine runs containers as root): set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem) as for the docker CLI, or platform.docker.tls: { ca, cert, key }, or accept plain HTTP with platform.docker.insecureTcp: true`;
const suiteAt = (path: string): Suite => ({ ...fakeSuite(), source: { path, sha256: "0".repeat(64), builtin: false } });

function certDir(files = ["ca.pem", "cert.pem", "key.pem"]): string {
  const dir = tempDir("gpucheck-docker-certs-");
  for (const f of files) writeFileSync(join(dir, f), `-----BEGIN ${f}-----\n`);
  return dir;
}

describe("which transport a tcp engine gets", () => {
  test("nothing said: refused, in one line naming the engine and the three ways out", () => {
    expect(() => tcpTls(URL_, settings.parse({}), fakeSuite(), {})).toThrow(new SuiteError(REFUSED));
    // DOCKER_CERT_PATH alone does not turn TLS on, as with the docker CLI
    expect(() => tcpTls(URL_, settings.parse({}), fakeSuite(), { DOCKER_CERT_PATH: certDir() })).toThrow(REFUSED);
    expect(() => tcpTls("http://10.0.0.5:2375", settings.parse({}), fakeSuite(), {})).toThrow('engine "http://10.0.0.5:2375" would be reached over plain HTTP');
  });

  test("insecureTcp: plain HTTP, because the suite says so by name", () => {
    expect(tcpTls(URL_, settings.parse({ insecureTcp: true }), fakeSuite(), {})).toBeUndefined();
  });

  test("DOCKER_TLS_VERIFY (any non-empty value) or DOCKER_TLS: TLS with the files of DOCKER_CERT_PATH that exist", () => {
    const dir = certDir();
    const all = { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem"), from: "DOCKER_CERT_PATH" };
    expect(tcpTls(URL_, settings.parse({}), fakeSuite(), { DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: dir })).toEqual(all);
    expect(tcpTls(URL_, settings.parse({}), fakeSuite(), { DOCKER_TLS_VERIFY: "0", DOCKER_CERT_PATH: dir })).toEqual(all);
    expect(tcpTls(URL_, settings.parse({}), fakeSuite(), { DOCKER_TLS: "1", DOCKER_CERT_PATH: dir })).toEqual(all);
    // TLS beats insecureTcp: the opt-in allows plain HTTP, it does not ask for it
    expect(tcpTls(URL_, settings.parse({ insecureTcp: true }), fakeSuite(), { DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: dir })).toEqual(all);
    // a CA only: no client certificate; a certificate without its key is not used
    const caOnly = certDir(["ca.pem", "cert.pem"]);
    expect(tcpTls(URL_, settings.parse({}), fakeSuite(), { DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: caOnly })).toEqual({ ca: join(caOnly, "ca.pem"), from: "DOCKER_CERT_PATH" });
  });

  test("without DOCKER_CERT_PATH the files are ~/.docker's; an https:// engine is TLS by itself", () => {
    expect(tcpTls(URL_, settings.parse({}), fakeSuite(), { DOCKER_TLS_VERIFY: "1" })?.from).toBe("~/.docker");
    expect(tcpTls("https://10.0.0.5", settings.parse({}), fakeSuite(), { HOME: homedir() })).toMatchObject({ from: "~/.docker" });
  });

  test("platform.docker.tls names the files, relative to the suite file, and wins over the environment", () => {
    const s = settings.parse({ tls: { ca: "certs/ca.pem", cert: "/abs/cert.pem", key: "~/k.pem" } });
    expect(tcpTls(URL_, s, suiteAt("/suites/lab/x.yaml"), { DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: certDir() })).toEqual({
      ca: "/suites/lab/certs/ca.pem",
      cert: "/abs/cert.pem",
      key: join(homedir(), "k.pem"),
      from: "platform.docker.tls",
    });
  });

  test("a file that cannot be read is named, with where its name came from", () => {
    expect(() => tlsOptions(URL_, { ca: "/nonexistent/ca.pem", from: "DOCKER_CERT_PATH" })).toThrow(
      new PlatformError(`docker: cannot read the CA certificate for engine ${URL_}: /nonexistent/ca.pem (no such file; named by DOCKER_CERT_PATH)`),
    );
    const dir = certDir();
    expect(Object.keys(tlsOptions(URL_, { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem"), from: "x" })).sort()).toEqual(["ca", "cert", "key"]);
  });
});

describe("in the suite and the plan", () => {
  test("tls: cert without key is refused at its position", async () => {
    const text = await problems(`name: s
platform:
  type: docker
  docker:
    hosts: [tcp://10.0.0.5:2376]
    tls: { ca: ca.pem, cert: cert.pem }
tests:
  - { name: inv, kind: inventory }
`);
    expect(text).toBe(`suite.yaml:6:10: "tls" has cert but no key: give the client certificate (cert) and its private key (key) together
      tls: { ca: ca.pem, cert: cert.pem }
           ^`);
  });

  test("insecureTcp must be true or false", async () => {
    const text = await problems(`name: s
platform:
  type: docker
  docker: { insecureTcp: "yes" }
tests:
  - { name: inv, kind: inventory }
`);
    expect(text).toBe(`suite.yaml:4:26: "insecureTcp" must be true or false, got "yes"
    docker: { insecureTcp: "yes" }
                           ^`);
  });

  test("plan says how each tcp engine is reached; a plain one is refused by plan itself", () => {
    const t = scriptTest("t", "python3", "print(1)", { nodes: 1 });
    const dir = certDir();
    const render = (s: Record<string, unknown>) => docker.render({ suite: fakeSuite(), settings: settings.parse(s), cli: {}, test: t, launch: t.launch, workloadHash: "h" });
    const tls = render({ hosts: ["tcp://10.0.0.5:2376"], tls: { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") } });
    expect(tls.text).toContain(
      `tcp engines:\n  tcp://10.0.0.5:2376: TLS, the engine verified against CA ${join(dir, "ca.pem")}, client certificate ${join(dir, "cert.pem")}, key ${join(dir, "key.pem")} (from platform.docker.tls)`,
    );
    expect(tls.transport).toEqual({
      "tcp://10.0.0.5:2376": { tls: { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem"), from: "platform.docker.tls" } },
    });
    expect(render({ hosts: ["tcp://10.0.0.5:2375"], insecureTcp: true }).text).toContain("tcp://10.0.0.5:2375: plain HTTP (platform.docker.insecureTcp: true)");
    const saved = { v: process.env.DOCKER_TLS_VERIFY, t: process.env.DOCKER_TLS };
    delete process.env.DOCKER_TLS_VERIFY;
    delete process.env.DOCKER_TLS;
    try {
      expect(() => render({ hosts: ["tcp://10.0.0.5:2376"] })).toThrow(REFUSED);
    } finally {
      if (saved.v !== undefined) process.env.DOCKER_TLS_VERIFY = saved.v;
      if (saved.t !== undefined) process.env.DOCKER_TLS = saved.t;
    }
  });
});
