// GET /api/v1/namespaces/{ns}/pods/{name}/log as the kubelet serves it through the API server:
// container choice and its errors, timestamps=true (RFC 3339 with nanoseconds), sinceTime (whole
// seconds), and follow=true streaming until the container ends.
import type { ServerResponse } from "node:http";
import type { LogBuffer, PodObj } from "./kubelet.ts";
import { notFound, RESOURCES, status } from "./resources.ts";

export function serveLog(
  res: ServerResponse,
  q: URLSearchParams,
  podName: string,
  pod: PodObj | undefined,
  container: string | null,
  buffer: (container: string) => LogBuffer | undefined,
  /** lines after which a follow response is cut, to test clients that must resume */
  breakAfter: (container: string) => number,
): void {
  const send = (code: number, body: unknown) => {
    res.writeHead(code, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (!pod) return send(404, notFound(RESOURCES[0]!, podName));
  const names = pod.spec.containers.map((c) => c.name);
  const c = container ?? (names.length === 1 ? names[0]! : undefined);
  if (!c || !names.includes(c)) {
    return send(
      400,
      status(
        400,
        "BadRequest",
        c ? `container ${c} is not valid for pod ${podName}` : `a container name must be specified for pod ${podName}, choose one of: [${names.join(" ")}]`,
      ),
    );
  }
  const buf = buffer(c);
  if (!buf) {
    const w =
      ((pod.status as { containerStatuses?: Array<{ state?: { waiting?: { reason?: string } } }> })?.containerStatuses ?? [])[0]?.state?.waiting?.reason ?? "ContainerCreating";
    return send(400, status(400, "BadRequest", `container "${c}" in pod "${podName}" is waiting to start: ${w}`));
  }
  const since = q.get("sinceTime");
  const stamps = q.get("timestamps") === "true";
  const follow = q.get("follow") === "true";
  const breakAt = follow ? breakAfter(c) : Infinity;
  res.writeHead(200, { "content-type": "text/plain" });
  let sent = 0;
  let i = 0;
  const flush = (): boolean => {
    for (; i < buf.lines.length; i++) {
      const l = buf.lines[i]!;
      if (since && l.ts.slice(0, 19) < since.slice(0, 19)) continue;
      if (sent >= breakAt) return true;
      res.write(stamps ? `${l.ts} ${l.text}\n` : `${l.text}\n`);
      sent++;
    }
    return false;
  };
  if (flush() || !follow || buf.done) return void res.end();
  const unsubscribe = buf.subscribe(() => {
    if (flush() || buf.done) {
      unsubscribe();
      res.end();
    }
  });
  res.on("close", unsubscribe);
}
