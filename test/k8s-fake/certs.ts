// A throwaway CA, a server certificate for 127.0.0.1 and a client certificate, made with the
// openssl CLI: real clusters are reached over TLS with their own CA and, often, client certificates.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

export interface Certs {
  dir: string;
  ca: string;
  serverKey: string;
  serverCert: string;
  clientKey: string;
  clientCert: string;
}

export function makeCerts(): Certs {
  const dir = tempDir("k8s-fake-certs-");
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-subj", "/CN=fake-kubernetes-ca", "-days", "2");
  writeFileSync(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  for (const [name, subj, ext] of [
    ["server", "/CN=kube-apiserver", ["-extfile", "san.ext"]],
    ["client", "/O=gpucheck-testers/CN=gpucheck", []],
  ] as const) {
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subj);
    ssl("x509", "-req", "-in", `${name}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.crt`, "-days", "2", ...ext);
  }
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  return { dir, ca: read("ca.crt"), serverKey: read("server.key"), serverCert: read("server.crt"), clientKey: read("client.key"), clientCert: read("client.crt") };
}
