// Creating a test's objects, and per-node units in turns (plugins/_shared/window.ts): a node's Job is
// created when a slot frees, followed with the test's timeout to itself, and deleted with its pod as
// soon as the unit ends, so a 1,000-node run holds at most maxParallel Jobs and pods at a time.
import type { UnitRun } from "../../lib/core/types.ts";
import { inWindow, notReached, type Window } from "../_shared/window.ts";
import { apiError, statusOf } from "./api-errors.ts";
import { deleteLabelled, resourceName } from "./cleanup.ts";
import type { Kube } from "./client.ts";
import { followUnit, type FollowContext, type UnitSpec } from "./follow.ts";
import type { Manifest } from "./input.ts";
import { sleep } from "./watch.ts";

/** waits before each new try of a create that got no answer */
const RETRY_MS = [1000, 2000, 4000];

/**
 * A create that got no answer (a connection reset: one Job created mid-run at 300 fake nodes got
 * ECONNRESET, which ended the whole test) is tried again. A 409 then is the earlier try having
 * landed: every name carries the run's fresh id. Any answer is final.
 */
export async function createObject(kube: Kube, m: Manifest): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await kube.objects.create(structuredClone(m));
      return;
    } catch (e) {
      const status = statusOf(e);
      if (attempt > 0 && status?.code === 409) return;
      if (status || attempt === RETRY_MS.length) {
        throw apiError(e, { verb: "create", resource: resourceName(m.apiVersion, m.kind), namespace: kube.namespace, name: m.metadata.name }, kube.server);
      }
      await sleep(RETRY_MS[attempt]!);
    }
  }
}

export interface Turns {
  maxParallel: number;
  /** each unit's own object (its Job), by the unit's owner name */
  jobs: ReadonlyMap<string, Manifest>;
  /** --keep: nothing is deleted, not even a finished unit's Job */
  keep: boolean;
  /** told when a node's turn comes and when it ends, for the progress's counts */
  ctx: Window<UnitSpec>["ctx"];
}

/** Per-node units one window at a time. A refused create ends the whole test, as it does when every object is created up front. */
export async function followInTurns(kube: Kube, units: UnitSpec[], t: Turns, fc: FollowContext): Promise<UnitRun[]> {
  const halt = new AbortController();
  let refused: unknown;
  const window = {
    size: t.maxParallel,
    signal: AbortSignal.any([fc.signal, halt.signal]),
    timeoutMs: fc.timeoutMs,
    noun: "node",
    placeOf: (u: UnitSpec) => ({ unit: u.unit, node: u.unit }),
    ctx: t.ctx,
  };
  const runs = await inWindow(units, window, async (u, signal) => {
    const job = t.jobs.get(u.owner)!;
    try {
      await createObject(kube, job);
    } catch (e) {
      refused ??= e;
      halt.abort();
      return notReached(window.placeOf(u), window);
    }
    try {
      return await followUnit(kube, u, { ...fc, signal });
    } finally {
      // what is left (a pod still terminating after the wait) the run's own cleanup finds by its label
      if (!t.keep) await deleteLabelled(kube, u.labelSelector, [{ apiVersion: job.apiVersion, kind: job.kind, resource: resourceName(job.apiVersion, job.kind) }]);
    }
  });
  if (refused) throw refused;
  return runs;
}
