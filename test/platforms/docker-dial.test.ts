// The command transport under dockerode (what ssh engines ride on), with commands run here: a
// failure before or during a response becomes the command's own explanation, close() ends what is
// still open (against the real local engine: test/integration/platforms/docker-dial-engine.test.ts).
import { describe, expect, test } from "bun:test";
import Docker from "dockerode";
import { apiMessage } from "../../plugins/docker/client.ts";
import { commandDialer, DialError } from "../../plugins/docker/dial.ts";
import { localLeftovers } from "./leftovers.ts";

const describeFailure = (code: number | null, signal: string | null, stderr: string) => `exit ${code ?? signal}: ${stderr.trim()}`;
const over = (argv: string[]) => {
  const dialer = commandDialer(argv, describeFailure);
  return { dialer, d: new Docker({ protocol: "http", host: "docker", port: 80, agent: dialer.agent } as Docker.DockerOptions) };
};

describe("docker command transport", () => {
  test("a connection whose command fails before answering: the call fails with the command's explanation", async () => {
    const { dialer, d } = over(["sh", "-c", "echo 'permission denied while trying to connect to the Docker daemon socket' >&2; exit 1"]);
    const err = await d.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DialError);
    expect(apiMessage(err)).toBe("exit 1: permission denied while trying to connect to the Docker daemon socket");
    expect(dialer.lastFailure()).toBe("exit 1: permission denied while trying to connect to the Docker daemon socket");
  });

  test("a connection lost in the middle of a response: the call fails with why, not a half-read body", async () => {
    const marker = `gpucheck-dial-lost-${process.pid}`;
    const response = 'HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 100\\r\\n\\r\\n{"StatusCode"';
    const { d } = over(["sh", "-c", `head -c 20 >/dev/null; printf '${response}'; sleep 0.2; echo 'Connection to n1 closed by remote host.' >&2; exit 255 # ${marker}`]);
    const err = await d
      .getContainer("c")
      .wait()
      .then(
        (r: unknown) => r,
        (e: unknown) => e,
      );
    expect(apiMessage(err)).toBe("exit 255: Connection to n1 closed by remote host.");
    expect(await localLeftovers(marker)).toEqual([]);
  });

  test("close() ends the connections still open, and their calls fail", async () => {
    const marker = `gpucheck-dial-close-${process.pid}`;
    const { dialer, d } = over(["sh", "-c", `sleep 60 # ${marker}`]);
    const call = d.ping().then(
      () => "answered",
      (e: unknown) => e,
    );
    await Bun.sleep(300);
    expect((await localLeftovers(marker)).length).toBeGreaterThan(0);
    dialer.close();
    // the agent's sockets are destroyed first: the http client's own word for that
    expect(apiMessage(await call)).toBe("ECONNRESET");
    expect(await localLeftovers(marker)).toEqual([]);
  });
});
