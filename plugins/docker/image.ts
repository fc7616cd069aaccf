// Getting an engine ready for a test: it must honour GPU requests when the test asks for GPUs,
// and have the image (pulled with a progress note when missing, as platform.docker.pull says).
import type Docker from "dockerode";
import { PlatformError } from "../../lib/core/errors.ts";
import { apiMessage, engineMessage } from "./client.ts";
import type { DockerSettings } from "./spec.ts";

export async function prepareEngine(
  d: Docker,
  url: string,
  o: { image: string; pull: DockerSettings["pull"]; wantsGpus: boolean; note: (m: string) => void; signal: AbortSignal },
): Promise<void> {
  await checkGpuSupport(d, url, o.wantsGpus);
  await ensureImage(d, url, o);
}

/**
 * Podman's Docker-compatible API (seen with 4.3.1) accepts DeviceRequests and silently drops them:
 * a GPU test would then run without GPUs. Refuse instead of measuring the wrong thing.
 */
async function checkGpuSupport(d: Docker, url: string, wantsGpus: boolean): Promise<void> {
  if (!wantsGpus) return;
  let v: { Components?: Array<{ Name: string; Version: string }> };
  try {
    v = (await d.version()) as typeof v;
  } catch (err) {
    throw new PlatformError(engineMessage(url, err));
  }
  const podman = v.Components?.find((c) => /podman/i.test(c.Name));
  if (podman) {
    throw new PlatformError(
      `engine ${url} is ${podman.Name} ${podman.Version}, whose Docker-compatible API ignores GPU device requests: the containers would see no GPU; use Docker Engine with the NVIDIA container toolkit, or run this test with gpusPerNode: 0`,
    );
  }
}

async function ensureImage(d: Docker, url: string, o: { image: string; pull: DockerSettings["pull"]; note: (m: string) => void; signal: AbortSignal }): Promise<void> {
  const { image, pull } = o;
  let present = true;
  try {
    await d.getImage(image).inspect();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw new PlatformError(engineMessage(url, err));
    present = false;
  }
  if (present && pull !== "always") return;
  if (!present && pull === "never") throw new PlatformError(`image "${image}" is not on engine ${url} and platform.docker.pull is "never"`);
  o.note(`pulling ${image} on ${url}`);
  let lastError: string | undefined;
  try {
    const stream = await d.pull(image, { abortSignal: o.signal } as object);
    await new Promise<void>((resolve, reject) => {
      let last = 0;
      d.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (ev: { status?: string; progress?: string; id?: string; error?: string }) => {
          if (ev.error) lastError = ev.error;
          if (Date.now() - last > 2000) {
            last = Date.now();
            o.note(`pull ${image}: ${[ev.id, ev.status, ev.progress].filter(Boolean).join(" ")}`);
          }
        },
      );
    });
  } catch (err) {
    lastError = apiMessage(err);
  }
  // podman reports a failed pull inside a successful stream: trust only the image being there
  const pulled = await d
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (!pulled) {
    throw new PlatformError(`image "${image}" is not on engine ${url} and pulling it failed: ${lastError ?? "the engine did not say why"}`);
  }
}
