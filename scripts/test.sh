#!/usr/bin/env bash
# All tests on a fresh Debian machine: installs what is missing, builds the binary, starts the real
# daemons (sshd, slurm, dockerd, podman) on loopback, runs bun test and pytest, and ends with
# "N passed, N failed" counted from both runners' JUnit reports.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/ci-deps.sh || { echo "test.sh: installing Debian packages failed" >&2; exit 1; }
if [ ! -x node_modules/.bin/bun ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >/dev/null || { echo "test.sh: npm ci failed" >&2; exit 1; }
fi
export PATH="$root/node_modules/.bin:$PATH"
bun run build || { echo "test.sh: build failed" >&2; exit 1; }

infra=()
for name in ssh slurm docker; do
  if [ -f "test/infra/$name.sh" ]; then
    if bash "test/infra/$name.sh" start >"/tmp/gpucheck-infra-$name.log" 2>&1; then
      infra+=("$name")
    else
      echo "test.sh: could not start $name (see /tmp/gpucheck-infra-$name.log):" >&2
      tail -5 "/tmp/gpucheck-infra-$name.log" >&2
      infra+=("$name") # listed anyway: its tests must fail loudly, not skip
    fi
  fi
done
# docker.sh also starts podman's Docker-compatible API when it can
[ -S /run/podman/podman.sock ] && infra+=("podman")
export GPUCHECK_INFRA=$(IFS=,; echo "${infra[*]}")
echo "test.sh: infra: ${GPUCHECK_INFRA:-none}" >&2

reports=$(mktemp -d)
bun test --timeout 120000 --reporter=junit --reporter-outfile="$reports/bun.xml" "$@"
bun_rc=$?
if [ $# -eq 0 ]; then
  (cd workload && /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="$reports/pytest.xml" tests)
  py_rc=$?
  [ $py_rc -eq 5 ] && py_rc=0 # no tests collected is not a failure of the runner
else
  py_rc=0
fi

for name in "${infra[@]}"; do
  [ -f "test/infra/$name.sh" ] && bash "test/infra/$name.sh" stop >/dev/null 2>&1
done

/usr/bin/python3 - "$reports" "$bun_rc" "$py_rc" <<'PY'
import sys, glob, xml.etree.ElementTree as ET
passed = failed = skipped = 0
for f in glob.glob(sys.argv[1] + "/*.xml"):
    try:
        root = ET.parse(f).getroot()
    except ET.ParseError as e:
        print(f"test.sh: unreadable report {f}: {e}", file=sys.stderr); failed += 1; continue
    for case in root.iter("testcase"):
        kids = {c.tag for c in case}
        if kids & {"failure", "error"}:
            failed += 1
            # CI keeps only the tail of the log: repeat each failure's own words just above the count
            why = next(c for c in case if c.tag in ("failure", "error"))
            text = (why.text or why.get("message") or "").strip().splitlines()
            print(f"FAILED {case.get('file') or case.get('classname')}: {case.get('name')}")
            for line in text[:40] + (["  ..."] if len(text) > 40 else []):
                print(f"  {line}")
        elif "skipped" in kids: skipped += 1
        else: passed += 1
# a runner that crashed without reporting its failures still fails the run
for rc in sys.argv[2:]:
    if rc != "0" and failed == 0: failed = 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
