// Credentials as real clusters hand them out: TLS with the cluster's own CA and a client
// certificate (kubeadm, k3s), bearer tokens, exec plugins (EKS, GKE, AKS), and a pod's service
// account when gpucheck runs in-cluster. Bun's fetch ignores undici dispatchers, so this is where a
// silently dropped CA or client certificate would show.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "@kubernetes/client-node";
import { loadKubeConfig } from "../../../plugins/k8s/kubeconfig.ts";
import { makeCerts, type Certs } from "../../k8s-fake/certs.ts";
import { FakeCluster } from "../../k8s-fake/cluster.ts";
import { PYTHON, runOnFake } from "../../k8s-fake/harness.ts";
import { scriptTest } from "../../platforms/conformance.ts";
import { tempDir } from "../../tmp.ts";

let certs: Certs;
let tls: FakeCluster;
beforeAll(async () => {
  certs = makeCerts();
  tls = await FakeCluster.start({ tls: { key: certs.serverKey, cert: certs.serverCert, ca: certs.ca }, token: "s3cret-token" });
});
afterAll(async () => {
  await tls.stop();
});

const b64 = (s: string) => Buffer.from(s).toString("base64");
const ok = scriptTest("auth", PYTHON, "print('authenticated')", { nodes: 1, ranksPerNode: 1 });

test("TLS with the cluster's CA, a client certificate and a bearer token: the run completes", async () => {
  const user = { "client-certificate-data": b64(certs.clientCert), "client-key-data": b64(certs.clientKey), token: "s3cret-token" };
  const dir = tempDir("kc-");
  const path = tls.kubeconfig(dir, { namespace: "gpu", user });
  const r = await runOnFake(tls, ok, { kubeconfigDir: tempDir("kc2-"), runOptions: { source: { env: { KUBECONFIG: path } } } });
  expect(r.units[0]!.status).toBe("completed");
  expect(r.units[0]!.output).toBe("authenticated\n");
}, 30_000);

test("an exec credential plugin's token is used (as `aws eks get-token` provides it)", async () => {
  const dir = tempDir("kc-exec-");
  const plugin = join(dir, "get-token");
  writeFileSync(plugin, `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"s3cret-token"}}'\n`);
  chmodSync(plugin, 0o755);
  const user = {
    "client-certificate-data": b64(certs.clientCert),
    "client-key-data": b64(certs.clientKey),
    exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, interactiveMode: "Never" },
  };
  const path = tls.kubeconfig(dir, { namespace: "gpu", user });
  const r = await runOnFake(tls, ok, { runOptions: { source: { env: { KUBECONFIG: path } } } });
  expect(r.units[0]!.status).toBe("completed");
}, 30_000);

test("a wrong token is a 401 with a pointed message", async () => {
  const dir = tempDir("kc-bad-");
  const path = tls.kubeconfig(dir, { namespace: "gpu", user: { "client-certificate-data": b64(certs.clientCert), "client-key-data": b64(certs.clientKey), token: "wrong" } });
  const err = (await runOnFake(tls, ok, { runOptions: { source: { env: { KUBECONFIG: path } } } }).catch((e: Error) => e)) as Error;
  expect(err.message).toMatch(
    /^k8s: https:\/\/127\.0\.0\.1:\d+ rejected the credentials \(401 Unauthorized\) on create configmaps "gc-auth-[0-9a-f]{6}-wl" in namespace "gpu": Unauthorized: log in again or refresh the kubeconfig's token$/,
  );
}, 30_000);

test("a cluster CA that does not match is refused, not skipped", async () => {
  const dir = tempDir("kc-ca-");
  const other = makeCerts();
  const path = tls.kubeconfig(dir, { user: { token: "s3cret-token", "client-certificate-data": b64(certs.clientCert), "client-key-data": b64(certs.clientKey) } });
  const cfg = JSON.parse(await Bun.file(path).text());
  cfg.clusters[0].cluster["certificate-authority-data"] = b64(other.ca);
  writeFileSync(path, JSON.stringify(cfg));
  const err = (await runOnFake(tls, ok, { runOptions: { source: { env: { KUBECONFIG: path } } } }).catch((e: Error) => e)) as Error;
  expect(err.message).toMatch(/^k8s: cannot reach the API server https:\/\/127\.0\.0\.1:\d+ \(context "fake" from .*kubeconfig\): .*(certificate|CERT)/);
}, 30_000);

test("in-cluster: the pod's service account token, CA and namespace; a whole run with them", async () => {
  const root = tempDir("sa-");
  const sa = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
  mkdirSync(sa, { recursive: true });
  writeFileSync(join(sa, "token"), "s3cret-token");
  writeFileSync(join(sa, "ca.crt"), certs.ca);
  writeFileSync(join(sa, "namespace"), "gpu-acceptance\n");
  // a service account has a token and no client certificate
  const api = await FakeCluster.start({ tls: { key: certs.serverKey, cert: certs.serverCert, ca: certs.ca, clientCerts: false }, token: "s3cret-token" });
  try {
    const port = new URL(api.url).port;
    const source = { env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: port }, home: root, inClusterRoot: root };
    const loaded = loadKubeConfig(k, source);
    expect(loaded.source).toBe("in-cluster service account");
    expect(loaded.namespace).toBe("gpu-acceptance");
    expect(loaded.kc.getCurrentCluster()!.server).toBe(`https://127.0.0.1:${port}`);
    const r = await runOnFake(api, ok, { runOptions: { source } });
    expect(r.units[0]!.status).toBe("completed");
    expect(api.requests.some((q) => q.path.startsWith("/api/v1/namespaces/gpu-acceptance/configmaps"))).toBe(true);
  } finally {
    await api.stop();
  }
}, 30_000);

test("kubeconfig search order and errors", () => {
  const home = tempDir("home-");
  expect(() => loadKubeConfig(k, { env: {}, home })).toThrow(
    "k8s: no Kubernetes credentials: set KUBECONFIG, create ~/.kube/config, or run gpucheck in a pod with a service account",
  );
  expect(() => loadKubeConfig(k, { env: { KUBECONFIG: "/nonexistent/a:/nonexistent/b" }, home })).toThrow("k8s: KUBECONFIG names no existing file: /nonexistent/a:/nonexistent/b");
  mkdirSync(join(home, ".kube"));
  const path = tls.kubeconfig(join(home, ".kube"), { context: "prod", namespace: "ml" });
  writeFileSync(join(home, ".kube", "config"), readFileSync(path));
  const loaded = loadKubeConfig(k, { env: {}, home });
  expect([loaded.source, loaded.context, loaded.namespace]).toEqual([join(home, ".kube", "config"), "prod", "ml"]);
  expect(() => loadKubeConfig(k, { env: {}, home, context: "staging" })).toThrow(`k8s: context "staging" is not in ${join(home, ".kube", "config")}: it has "prod"`);
});
