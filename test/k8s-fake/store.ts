// The fake API server's storage: objects by resource/namespace/name, one global resourceVersion,
// and a bounded event history so watches can resume from a version, or get 410 Gone when their
// version has been compacted away (as etcd compaction does to a real API server).
import { randomUUID } from "node:crypto";

export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
  };
  [k: string]: unknown;
};

export type EventType = "ADDED" | "MODIFIED" | "DELETED";
export interface StoreEvent {
  rv: number;
  type: EventType;
  resource: string;
  namespace: string;
  object: Obj;
}

const key = (resource: string, ns: string, name: string) => `${resource}/${ns}/${name}`;

export class Store {
  private objects = new Map<string, Obj>();
  private history: StoreEvent[] = [];
  private listeners = new Set<(e: StoreEvent) => void>();
  rv = 100;
  /** events kept for watch resumption; older versions get 410 Gone */
  historyLimit = 10_000;

  get(resource: string, ns: string, name: string): Obj | undefined {
    const o = this.objects.get(key(resource, ns, name));
    return o && structuredClone(o);
  }

  list(resource: string, ns: string | undefined, match: (o: Obj) => boolean = () => true): Obj[] {
    const out: Obj[] = [];
    for (const [k, o] of this.objects) {
      if (!k.startsWith(`${resource}/`)) continue;
      if (ns !== undefined && (o.metadata.namespace ?? "") !== ns) continue;
      if (match(o)) out.push(structuredClone(o));
    }
    return out.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  /** undefined when the name is taken */
  create(resource: string, ns: string, obj: Obj): Obj | undefined {
    const o = structuredClone(obj);
    if (!o.metadata.name && o.metadata.generateName) o.metadata.name = o.metadata.generateName + randomUUID().slice(0, 5);
    if (this.objects.has(key(resource, ns, o.metadata.name))) return undefined;
    if (ns) o.metadata.namespace = ns;
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    return this.commit("ADDED", resource, ns, o);
  }

  /** read-modify-write; returns undefined when the object is gone */
  update(resource: string, ns: string, name: string, mutate: (o: Obj) => void): Obj | undefined {
    const cur = this.objects.get(key(resource, ns, name));
    if (!cur) return undefined;
    const o = structuredClone(cur);
    mutate(o);
    if (JSON.stringify(o) === JSON.stringify(cur)) return structuredClone(cur);
    return this.commit("MODIFIED", resource, ns, o);
  }

  remove(resource: string, ns: string, name: string): Obj | undefined {
    const cur = this.objects.get(key(resource, ns, name));
    if (!cur) return undefined;
    this.objects.delete(key(resource, ns, name));
    return this.commit("DELETED", resource, ns, structuredClone(cur));
  }

  private commit(type: EventType, resource: string, ns: string, o: Obj): Obj {
    o.metadata.resourceVersion = String(++this.rv);
    if (type !== "DELETED") this.objects.set(key(resource, ns, o.metadata.name), o);
    const e: StoreEvent = { rv: this.rv, type, resource, namespace: ns, object: structuredClone(o) };
    this.history.push(e);
    if (this.history.length > this.historyLimit) this.history.splice(0, this.history.length - this.historyLimit);
    for (const l of this.listeners) l(e);
    return structuredClone(o);
  }

  /** events after `rv`, or "gone" when history no longer reaches back that far */
  since(rv: number): StoreEvent[] | "gone" {
    const oldest = this.history[0]?.rv ?? this.rv + 1;
    if (rv < oldest - 1 && rv < this.rv) return "gone";
    return this.history.filter((e) => e.rv > rv);
  }

  /** drop the history, as compaction does: every older resourceVersion now answers 410 */
  compact(): void {
    this.history = [];
  }

  subscribe(f: (e: StoreEvent) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }
}

/** label selectors as the API takes them: a=b, a!=b, a, !a, a in (x,y), a notin (x,y) */
export function parseSelector(sel: string | null): (labels: Record<string, string> | undefined) => boolean {
  if (!sel) return () => true;
  const terms = sel
    .match(/[^,(]+(\([^)]*\))?/g)!
    .map((t) => t.trim())
    .filter(Boolean);
  const tests = terms.map((t): ((l: Record<string, string>) => boolean) => {
    let m: RegExpExecArray | null;
    if ((m = /^(\S+)\s+(in|notin)\s+\((.*)\)$/.exec(t))) {
      const vals = m[3]!.split(",").map((v) => v.trim());
      const [k, op] = [m[1]!, m[2]];
      return (l) => (op === "in" ? vals.includes(l[k] as string) : !vals.includes(l[k] as string));
    }
    if ((m = /^([^!=]+)!=(.*)$/.exec(t))) return (l) => l[m![1]!.trim()] !== m![2]!.trim();
    if ((m = /^([^=]+)==?(.*)$/.exec(t))) return (l) => l[m![1]!.trim()] === m![2]!.trim();
    if (t.startsWith("!")) return (l) => !(t.slice(1) in l);
    return (l) => t in l;
  });
  return (labels) => tests.every((f) => f(labels ?? {}));
}
