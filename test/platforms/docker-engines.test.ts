// Pure parts of the docker platform's engines: which engines a test uses, how they are named and
// laid out, the rendezvous before the run learns it, the ssh command lines of `gpucheck plan`, and
// the messages a failed ssh connection becomes.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Suite } from "../../lib/core/types.ts";
import { docker } from "../../plugins/docker.ts";
import { engineList, parseEngine } from "../../plugins/docker/engines.ts";
import { plannedMaster, unitsOf } from "../../plugins/docker/plan.ts";
import { dialFailure, probeScript } from "../../plugins/docker/remote.ts";
import { settings } from "../../plugins/docker/spec.ts";
import { sshSettings } from "../../plugins/_shared/ssh/settings.ts";
import { fakeSuite, scriptTest } from "./conformance.ts";
import { ranksOn } from "../../lib/core/planned-units.ts";
import { tempDir } from "../tmp.ts";

const none = settings.parse({});
const suiteWith = (blocks: Record<string, unknown>, path = "/suites/x.yaml"): Suite => ({
  ...fakeSuite(),
  platform: { type: "docker", settings: Object.fromEntries(Object.entries(blocks).map(([k, v]) => [k, k === "ssh" ? sshSettings.parse(v) : settings.parse(v)])) },
  source: { path, sha256: "0".repeat(64), builtin: false },
});
const urls = (s = none, cli: { hosts?: string[] } = {}, suite = fakeSuite()) => engineList(s, cli, suite).map((e) => e.url);

describe("docker engines", () => {
  const saved = process.env.DOCKER_HOST;
  afterEach(() => {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  });

  test("an entry is a socket, a tcp engine, or an ssh host with or without ssh://", () => {
    expect(parseEngine("unix:///run/podman/podman.sock")).toEqual({ kind: "socket", url: "unix:///run/podman/podman.sock", path: "/run/podman/podman.sock" });
    expect(parseEngine("tcp://10.0.0.5:2376")).toEqual({ kind: "tcp", url: "tcp://10.0.0.5:2376", host: "10.0.0.5" });
    expect(parseEngine("ssh://ops@gpu-07:2222")).toEqual({ kind: "ssh", url: "ssh://ops@gpu-07:2222", host: { name: "ops@gpu-07:2222", host: "gpu-07", user: "ops", port: 2222 } });
    expect(parseEngine("gpu-07")).toEqual({ kind: "ssh", url: "ssh://gpu-07", host: { name: "gpu-07", host: "gpu-07" } });
    expect(parseEngine("[fe80::1]:22").url).toBe("ssh://[fe80::1]:22");
  });

  test("bad entries are refused with the reason", () => {
    expect(() => parseEngine("unix://docker.sock")).toThrow('gpucheck: docker: engine "unix://docker.sock" is not valid: expected unix:///absolute/path');
    expect(() => parseEngine("npipe:////./pipe/docker_engine")).toThrow(
      'gpucheck: docker: engine "npipe:////./pipe/docker_engine" is not valid: expected unix://, tcp://, ssh:// or [user@]host[:port]',
    );
    // ssh's own host checks: nothing that ssh would read as an option reaches its command line
    expect(() => parseEngine("ssh://-oProxyCommand=touch")).toThrow(
      'gpucheck: ssh: host "-oProxyCommand=touch" is not valid: expected [user@]host[:port] with a host of letters, digits, . _ - (not starting with -)',
    );
    expect(() => parseEngine("gpu-07:99999")).toThrow('gpucheck: ssh: host "gpu-07:99999" is not valid: port "99999" is not a number from 1 to 65535');
  });

  test("--hosts wins over platform.docker.hosts, which wins over the ssh platform's hosts, then DOCKER_HOST, then the local socket", () => {
    const suite = suiteWith({ ssh: { hosts: ["s1", "s2"] } });
    expect(urls(settings.parse({ hosts: ["d1"] }), { hosts: ["c1", "c2"] }, suite)).toEqual(["ssh://c1", "ssh://c2"]);
    expect(urls(settings.parse({ hosts: ["d1", "unix:///x.sock"] }), {}, suite)).toEqual(["ssh://d1", "unix:///x.sock"]);
    expect(urls(none, {}, suite)).toEqual(["ssh://s1", "ssh://s2"]);
    process.env.DOCKER_HOST = "tcp://127.0.0.1:2375";
    // plain HTTP only where the suite says so (docker-tls.test.ts)
    expect(urls(settings.parse({ insecureTcp: true }))).toEqual(["tcp://127.0.0.1:2375"]);
    delete process.env.DOCKER_HOST;
    expect(urls()).toEqual(["unix:///var/run/docker.sock"]);
  });

  test("the ssh platform's hostfile, relative to the suite file", () => {
    const dir = tempDir("gpucheck-docker-hf-");
    writeFileSync(join(dir, "hosts"), "# rack 1\nnode-a slots=8\nops@node-b:2222\n");
    expect(urls(none, {}, suiteWith({ ssh: { hostfile: "hosts" } }, join(dir, "suite.yaml")))).toEqual(["ssh://node-a", "ssh://ops@node-b:2222"]);
  });

  test("an engine listed twice is refused: it would run two nodes' containers under one name", () => {
    expect(() => urls(none, { hosts: ["n1", "ssh://n1"] })).toThrow('gpucheck: docker: engine "ssh://n1" is listed twice: give one engine per node, or one engine for all nodes');
  });
});

describe("docker units", () => {
  const e = (...h: string[]) => h.map(parseEngine);
  const t = (nodes: number, perNode = false) => ({ name: "ar", nodes, perNode });

  test("an isolating pattern's round: each unit on the engines the plan gave it, all of them at once", () => {
    const units = [
      { name: "2.n1+n3", nodes: ["n1", "n3"], ranks: ranksOn(2, 1) },
      { name: "2.n4+n2", nodes: ["n4", "n2"], ranks: ranksOn(2, 1) },
    ];
    expect(unitsOf({ ...t(4), units }, e("n1", "n2", "n3", "n4")).map((u) => [u.unit, u.nodes.map((n) => [n.node, n.nodeRank, n.engine.url])])).toEqual([
      [
        "2.n1+n3",
        [
          ["n1", 0, "ssh://n1"],
          ["n3", 1, "ssh://n3"],
        ],
      ],
      [
        "2.n4+n2",
        [
          ["n4", 0, "ssh://n4"],
          ["n2", 1, "ssh://n2"],
        ],
      ],
    ]);
  });

  test("one unit on the first `nodes` engines; per-node: one unit per engine named for its host", () => {
    expect(unitsOf(t(2), e("n1", "n2", "n3")).map((u) => [u.unit, u.nodes.map((n) => [n.node, n.nodeRank, n.engine.url])])).toEqual([
      [
        "all",
        [
          ["n1", 0, "ssh://n1"],
          ["n2", 1, "ssh://n2"],
        ],
      ],
    ]);
    expect(unitsOf(t(1, true), e("n1", "ops@n2:22")).map((u) => [u.unit, u.nodes.map((n) => n.node)])).toEqual([
      ["n1", ["n1"]],
      ["ops@n2:22", ["ops@n2:22"]],
    ]);
  });

  test("several nodes on the only engine get distinct names", () => {
    expect(unitsOf(t(3), e("unix:///var/run/docker.sock"))[0]!.nodes.map((n) => n.node)).toEqual(["localhost", "localhost-1", "localhost-2"]);
    expect(unitsOf(t(2), e("n1"))[0]!.nodes.map((n) => n.node)).toEqual(["n1", "n1-1"]);
  });

  test("fewer engines than nodes is a usage error naming them", () => {
    expect(() => unitsOf(t(3), e("n1", "n2"))).toThrow('gpucheck: docker: test "ar" needs 3 nodes but 2 engines were given: ssh://n1, ssh://n2; give 3 with --hosts');
  });

  test("the planned rendezvous: ssh hosts at the address ssh reaches them on unless masterAddr says, a port free there", () => {
    const [u] = unitsOf(t(2), e("n1", "n2"));
    expect(plannedMaster(u!, {}, false)).toEqual({ addr: "{{masterAddr:n1}}", port: "{{masterPort:n1}}" });
    expect(plannedMaster(u!, { masterAddr: "10.1.0.1", masterPort: 29500 }, false)).toEqual({ addr: "10.1.0.1", port: 29500 });
    // masterAddr names rank 0's host of a whole-cluster test; a per-node unit's rendezvous is its own host
    expect(plannedMaster(unitsOf(t(1, true), e("n1"))[0]!, { masterAddr: "10.1.0.1" }, true).addr).toBe("{{masterAddr:n1}}");
    expect(plannedMaster(unitsOf(t(2), e("unix:///var/run/docker.sock"))[0]!, {}, false)).toEqual({ addr: "127.0.0.1", port: "{{masterPort:local}}" });
  });
});

describe("docker over ssh: plan and messages", () => {
  test("gpucheck plan shows the exact ssh command of every API connection, with the ssh platform's options", () => {
    const dir = tempDir("gpucheck-docker-plan-");
    const suite = suiteWith({ ssh: { configFile: "ssh_config", identityFile: "/keys/id", user: "ops", port: 2222, sshOptions: ["ProxyJump=bastion"] } }, join(dir, "suite.yaml"));
    const test_ = scriptTest("ar", "python3", "pass", { nodes: 2 });
    const r = docker.render({ suite, settings: none, cli: { hosts: ["n1", "root@n2:22"] }, test: test_, launch: test_.launch, workloadHash: "h" }) as {
      dial: Record<string, string[]>;
      text: string;
    };
    const common = ["-T", "-o", "BatchMode=yes", "-o", "ProxyJump=bastion", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"];
    const mux = ["ssh", "-o", "ControlMaster=no", "-o", "ControlPath={{controlDir}}/%C", "-F", join(dir, "ssh_config"), "-i", "/keys/id"];
    expect(r.dial).toEqual({
      "ssh://n1": [...mux, "-l", "ops", "-p", "2222", ...common, "--", "n1", "docker system dial-stdio"],
      // a host's own user and port win over the suite's
      "ssh://root@n2:22": [...mux, "-l", "root", "-p", "22", ...common, "--", "n2", "docker system dial-stdio"],
    });
    expect(r.text).toContain("unit all: MASTER_ADDR={{masterAddr:n1}} MASTER_PORT={{masterPort:n1}}");
  });

  test("the probe reports the address ssh reached the host on, and a free port only where a rendezvous lives", () => {
    expect(probeScript(false)).toBe('set -- $SSH_CONNECTION; echo "gpucheck-addr $3"\ncommand -v docker >/dev/null 2>&1 || { echo gpucheck-no-docker; exit 0; }');
    expect(probeScript(true)).toContain('echo "gpucheck-port $port"');
  });

  test("a failed connection names the host and says why, in ssh's or the docker CLI's words", () => {
    expect(dialFailure("n1", 255, null, "ssh: connect to host 127.0.0.9 port 2722: Connection refused\r\n")).toBe(
      "host n1: unreachable: ssh: connect to host 127.0.0.9 port 2722: Connection refused",
    );
    expect(dialFailure("n1", 255, null, "")).toBe("host n1: connection lost (ssh exited 255)");
    expect(dialFailure("n1", 255, null, "ops@n1: Permission denied (publickey).\n")).toBe("host n1: login refused: ops@n1: Permission denied (publickey)");
    const denied =
      "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: dial unix /var/run/docker.sock: connect: permission denied";
    expect(dialFailure("n1", 1, null, `${denied}\n`)).toBe(`host n1: \`docker system dial-stdio\` exited with 1: ${denied}`);
    expect(dialFailure("n1", 127, null, "sh: 1: docker: not found\n")).toBe("host n1: `docker system dial-stdio` exited with 127: sh: 1: docker: not found");
    // dial-stdio's complaint when the engine closes first is noise, not the reason
    const closeWrite =
      'time="2026-11-22T00:24:37Z" level=error msg="error while CloseWrite (stdin to stream): close unix @->/var/run/docker.sock: use of closed network connection"';
    expect(dialFailure("n1", 1, null, `${closeWrite}\n`)).toBe("host n1: `docker system dial-stdio` exited with 1: no message");
  });
});
