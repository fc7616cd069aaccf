#!/usr/bin/env bash
# Debian packages the tests need; installs only what is missing (apt-get update once, when needed).
# Each line: package — who needs it. Append, don't reorder.
set -euo pipefail
PKGS=(
  python3-torch        # workload on CPU (torch 1.13)
  python3-torchvision  # ResNet models
  python3-pytest       # workload unit tests
  python3-venv         # a torch-less interpreter for the missing-torch test
  libxml2-utils        # xmllint: JUnit validated against junit-10.xsd
  openssl              # certificate verification with standard tools
  chromium             # report.html and certificate.html rendered headless
  procps               # pgrep/pkill in leak checks
  python3-jsonschema   # results.json checked against schema/results.schema.json by a validator that is not ours
  poppler-utils        # pdfinfo: certificate.html printed by chromium must be 1-2 A4 pages
  jq                   # the openssl verification steps printed on every certificate
  openssh-client       # ssh-keygen -lf cross-checks the SHA256 key fingerprints
  openssh-server       # the ssh platform's tests: real sshd's on loopback (test/infra/ssh.sh)
  pdsh                 # bench/ssh-fanout.ts: the baseline gpucheck's ssh fan-out is compared with
  util-linux           # setsid: the ssh platform puts every remote rank in its own session
  openmpi-bin          # mpirun: the ssh platform's `launcher: mpirun` tested across two hosts
  slurm-wlm            # the slurm platform's tests: slurmctld + slurmd's on loopback (test/infra/slurm.sh)
  munge                # Slurm's authentication between its daemons and commands
  python3-pyflakes     # npm run lint: pyflakes on workload/ (unused names, undefined names; no style rules)
  prometheus           # promtool check metrics: metrics.prom checked by Prometheus' own linter (the integration tier)
  prometheus-node-exporter # its textfile collector reads metrics.prom as operators deploy it (the integration tier)
  python3-prometheus-client # metrics.prom read by Prometheus' Python client as Prometheus text and as OpenMetrics
  qemu-user-static     # the linux-arm64 binary (Grace hosts) run for real: test/integration/arm64.test.ts
  libc6-arm64-cross    # the arm64 loader and libc that qemu-aarch64-static -L /usr/aarch64-linux-gnu gives it
  ibsim-utils          # gpucheck fabric: a simulated InfiniBand subnet (test/infra/ibsim.sh, test/integration/fabric/)
  infiniband-diags     # gpucheck fabric: iblinkinfo, ibqueryerrors, ibportstate against it
  opensm               # gpucheck fabric: LIDs for the simulated subnet
  fio                  # kind storage: the workload runs fio; test/integration/storage/ and workload/tests/test_storage.py
)
bash "$(dirname "$0")/apt-install.sh" "${PKGS[@]}"
