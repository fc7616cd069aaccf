// Kubeflow variants, for clusters whose users already run training through these operators
// (quotas, gang scheduling and dashboards attached to them). Used only when the API server serves
// the CRD (see crd.ts).
//   PyTorchJob (training-operator ≥ 1.8, kubeflow.org/v1): pods <job>-master-0 and <job>-worker-<i>;
//     the operator injects MASTER_ADDR=<job>-master-0, MASTER_PORT (our port named pytorchjob-port),
//     RANK = pod index (master 0, worker i+1) and WORLD_SIZE = pods × nprocPerNode, so the node rank
//     is $(RANK) and nprocPerNode carries ranksPerNode. The container must be named "pytorch".
//   MPIJob (mpi-operator v2beta1): workers <job>-worker-<i> run sshd; the launcher pod's mpirun
//     starts one gpucheck_workload.launch per worker (node rank = OMPI_COMM_WORLD_RANK), which starts
//     that node's ranks. Processes started over ssh do not see the pod's env, so mpirun exports it.
//     The image needs OpenMPI and an OpenSSH server.
import { activeDeadlineSeconds, type Manifest, type ManifestInput } from "./input.ts";
import { k8sLiteral, LABEL_TEST, runLabels, STAGE_DIR } from "./names.ts";
import { podTemplate, type PodInput } from "./pod.ts";

export const PYTORCHJOB = { group: "kubeflow.org", version: "v1", plural: "pytorchjobs", kind: "PyTorchJob" } as const;
export const MPIJOB = { group: "kubeflow.org", version: "v2beta1", plural: "mpijobs", kind: "MPIJob" } as const;
export const PYTORCH_PORT_NAME = "pytorchjob-port";

function podInput(i: ManifestInput, over: Partial<PodInput>): PodInput {
  return {
    names: i.names,
    settings: i.settings,
    image: i.image,
    launch: i.launch,
    labels: runLabels(i.names, i.settings.labels),
    gpusPerNode: i.test.gpusPerNode,
    ranksPerNode: i.test.ranksPerNode,
    worldSize: i.test.worldSize,
    nodeRank: "$(RANK)",
    master: null,
    ...over,
  };
}

function runPolicy(i: ManifestInput, cleanPodPolicy: "None" | "Running") {
  return {
    cleanPodPolicy,
    backoffLimit: 0,
    activeDeadlineSeconds: activeDeadlineSeconds(i),
    ttlSecondsAfterFinished: i.settings.ttlSecondsAfterFinished,
  };
}

export function pytorchJob(i: ManifestInput): Manifest {
  const template = podTemplate(podInput(i, { containerName: "pytorch", ports: [{ name: PYTORCH_PORT_NAME, containerPort: i.settings.masterPort }] }));
  const replica = (replicas: number) => ({ replicas, restartPolicy: "Never", template });
  return {
    apiVersion: `${PYTORCHJOB.group}/${PYTORCHJOB.version}`,
    kind: PYTORCHJOB.kind,
    metadata: { name: i.names.base, namespace: i.namespace, labels: runLabels(i.names, i.settings.labels) },
    spec: {
      nprocPerNode: String(i.test.ranksPerNode),
      // pods stay after the job ends so their logs can be read; gpucheck deletes the job itself
      runPolicy: runPolicy(i, "None"),
      pytorchReplicaSpecs: {
        Master: replica(1),
        ...(i.test.nodes > 1 ? { Worker: replica(i.test.nodes - 1) } : {}),
      },
    },
  };
}

/** the launcher's command: mpirun with the ranks' environment exported by name */
export function mpirunCommand(i: ManifestInput, masterAddr: string): string[] {
  const exported: Record<string, string> = {
    ...i.launch.env,
    PYTHONPATH: STAGE_DIR,
    PYTHONUNBUFFERED: "1",
    PYTHONDONTWRITEBYTECODE: "1",
    WORLD_SIZE: String(i.test.worldSize),
    MASTER_ADDR: masterAddr,
    MASTER_PORT: String(i.settings.masterPort),
  };
  const perNode = `export GPUCHECK_NODE="$(hostname)"; exec "$0" -m gpucheck_workload.launch --nprocs ${i.test.ranksPerNode} --node-rank "$OMPI_COMM_WORLD_RANK" -- "$@"`;
  return [
    "mpirun",
    "--allow-run-as-root",
    "-np",
    String(i.test.nodes),
    "--map-by",
    "ppr:1:node",
    "--bind-to",
    "none",
    ...Object.entries(exported).flatMap(([k, v]) => ["-x", k8sLiteral(`${k}=${v}`)]),
    "/bin/sh",
    "-c",
    k8sLiteral(perNode),
    k8sLiteral(i.launch.python),
    ...i.launch.args.map(k8sLiteral),
  ];
}

export function mpiJob(i: ManifestInput): Manifest {
  const name = i.names.base;
  const worker = podTemplate(podInput(i, { containerName: "worker" }));
  const sshd = worker.spec!.containers[0]!;
  sshd.command = ["/usr/sbin/sshd", "-De"];
  // without the test label, the workers' anti-affinity does not keep a worker off the launcher's node
  const { [LABEL_TEST]: _, ...launcherLabels } = runLabels(i.names, i.settings.labels);
  const launcher = podTemplate(podInput(i, { containerName: "launcher", gpusPerNode: 0, labels: launcherLabels }));
  const mpirun = launcher.spec!.containers[0]!;
  mpirun.command = mpirunCommand(i, `${name}-worker-0.${name}.${i.namespace}.svc`);
  // the launcher only runs mpirun: it needs neither GPUs nor a node of its own
  mpirun.resources = {};
  delete launcher.spec!.affinity;
  return {
    apiVersion: `${MPIJOB.group}/${MPIJOB.version}`,
    kind: MPIJOB.kind,
    metadata: { name, namespace: i.namespace, labels: runLabels(i.names, i.settings.labels) },
    spec: {
      slotsPerWorker: 1,
      mpiImplementation: "OpenMPI",
      runPolicy: runPolicy(i, "Running"),
      mpiReplicaSpecs: {
        Launcher: { replicas: 1, restartPolicy: "Never", template: launcher },
        Worker: { replicas: i.test.nodes, restartPolicy: "Never", template: worker },
      },
    },
  };
}
