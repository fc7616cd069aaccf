#!/usr/bin/env bash
# Every tier on a fresh Debian machine (CI's .ci/run): installs what is missing, runs the checks
# (lint, typecheck, fmt: an unformatted file fails like a failing test), the unit tier (npm test), the integration tier
# (scripts/test-integration.sh: builds the binary, starts sshd/slurm/dockerd/podman on loopback) and
# pytest, and ends with "N passed, N failed" counted from their JUnit reports; each check counts as
# one testcase. The tests run with TMPDIR set to a fresh directory: anything they leave in it is a
# failed testcase naming what was left.
#   bash scripts/test.sh            everything
#   bash scripts/test.sh FILE...    only those bun test files, with the daemons (integration tier)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/ci-deps.sh || { echo "test.sh: installing Debian packages failed" >&2; exit 1; }
# a node_modules that is a link (a git worktree sharing another checkout's) is left alone: npm ci
# would empty the directory it points to, under every other checkout using it
if [ ! -L node_modules ] && { [ ! -x node_modules/.bin/bun ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  npm ci --no-audit --no-fund >/dev/null || { echo "test.sh: npm ci failed" >&2; exit 1; }
fi
export PATH="$root/node_modules/.bin:$PATH"

reports=$(mktemp -d)
tests_tmp=$(mktemp -d /tmp/gpucheck-tests-XXXXXX)
# like /tmp itself: the tests that step down to an unprivileged user (runuser -u nobody) must reach
# the directories they make in it
chmod 1777 "$tests_tmp"

# check ID NAME COMMAND...: runs a command as one JUnit testcase; its output is the failure's text.
check() {
  local id=$1 name=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  CHECK_OUTPUT=$out /usr/bin/python3 - "$reports/check-$id.xml" "$name" "$rc" <<'PY'
import os, sys, xml.etree.ElementTree as ET
path, name, rc = sys.argv[1:]
suite = ET.Element("testsuite", name="checks")
case = ET.SubElement(suite, "testcase", classname="checks", name=name, file="scripts/test.sh")
if rc != "0":
    ET.SubElement(case, "failure", message=f"exit {rc}").text = os.environ["CHECK_OUTPUT"]
ET.ElementTree(suite).write(path, encoding="unicode")
PY
  [ "$rc" = 0 ] || echo "test.sh: $name: failed (exit $rc)" >&2
}

# what the tests left in their TMPDIR, if anything
nothing_left() {
  # gpucheck-fashionmnist-v*: the workload's generated data set, made in a private temp dir (and kept: the
  # ranks read it after it returns) only where the user's cache (~/.cache/gpucheck) was unsafe (fakedata.py)
  local left; left=$(ls -A "$tests_tmp" | grep -v '^gpucheck-fashionmnist-v')
  [ -z "$left" ] || { echo "left in TMPDIR ($tests_tmp) by the tests:"; echo "$left"; return 1; }
}

# tier NAME: the seconds since the previous call go to NAME, printed at the end beside the counts
# (CI's budget is per run: this says which tier spends it)
tiers=("install $SECONDS s")
tier_start=$SECONDS
tier() { tiers+=("$1 $((SECONDS - tier_start)) s"); tier_start=$SECONDS; }

rcs=()
if [ $# -eq 0 ]; then
  check lint "lint: npm run lint (biome, pyflakes)" npm run --silent lint
  check typecheck "typecheck: npm run typecheck (tsc --noEmit)" npm run --silent typecheck
  check fmt "fmt: npm run fmt (biome format; npm run fmt:write fixes it)" npm run --silent fmt
  tier checks
  # the integration tier's build and daemon start-ups run beside the unit tier (a little CPU, mostly waits)
  (TMPDIR=$tests_tmp bash scripts/test-integration.sh --prepare >"$reports/prepare.log" 2>&1; echo $? >"$reports/prepare.rc") &
  prep_pid=$!
  # and so do the integration tests that need no daemon (test/integration/no-daemon/: the platforms
  # against their fakes, the 1,000-node fixtures), which the unit tier's short tests leave room for
  (TMPDIR=$tests_tmp bash scripts/test-integration.sh --no-daemon --reporter=junit --reporter-outfile="$reports/no-daemon.xml" >"$reports/no-daemon.log" 2>&1
    echo $? >"$reports/no-daemon.rc") &
  no_daemon_pid=$!
  TMPDIR=$tests_tmp npm test --silent -- --reporter=junit --reporter-outfile="$reports/unit.xml"
  rcs+=($?)
  tier unit
  wait $no_daemon_pid
  cat "$reports/no-daemon.log"
  rcs+=("$(cat "$reports/no-daemon.rc" 2>/dev/null || echo 1)")
  wait $prep_pid
  tier "integration without daemons" # what it and the daemons' start-ups added after the unit tier ended
  cat "$reports/prepare.log" >&2
  # a failed preparation is done again, and said, by the tier itself
  prepared=0; [ "$(cat "$reports/prepare.rc" 2>/dev/null)" = 0 ] && prepared=1
  # pytest runs beside the integration tier's two shards, done long before its timing-sensitive files
  # start: one torch thread (two fought the shards' ranks for the 2 cores). Beside the unit tier it made
  # a healthy pair of the k8s fakes miss its timeout; beside the last phase it lengthened it by 83 s.
  # Its output follows the tier's.
  (cd workload && SECONDS=0 && TMPDIR=$tests_tmp OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider --basetemp="$reports/pytest-tmp" --junitxml="$reports/pytest.xml" tests >"$reports/pytest.log" 2>&1
    echo $? >"$reports/pytest.rc"; echo $SECONDS >"$reports/pytest.seconds") &
  py_pid=$!
  TMPDIR=$tests_tmp GPUCHECK_INTEGRATION_PREPARED=$prepared GPUCHECK_INTEGRATION_NO_DAEMON_DONE=1 bash scripts/test-integration.sh --reporter=junit --reporter-outfile="$reports/integration.xml"
  rcs+=($?)
  tier integration
  wait $py_pid
  cat "$reports/pytest.log"
  py_rc=$(cat "$reports/pytest.rc" 2>/dev/null || echo 1)
  [ "$py_rc" -eq 5 ] && py_rc=0 # no tests collected is not a failure of the runner
  rcs+=("$py_rc")
  tier "pytest's wait" # what pytest added after the integration tier ended; its own wall time follows
  tiers+=("pytest $(cat "$reports/pytest.seconds" 2>/dev/null || echo ?) s beside the integration tier")
  check tmp-clean "tmp-clean: the tests leave nothing in TMPDIR" nothing_left
else
  TMPDIR=$tests_tmp bash scripts/test-integration.sh --reporter=junit --reporter-outfile="$reports/bun.xml" "$@"
  rcs+=($?)
  tier integration
fi
rm -rf "$tests_tmp"

TIERS="$(IFS=,; echo "${tiers[*]}" | sed 's/,/, /g'); total $SECONDS s" /usr/bin/python3 - "$reports" "${rcs[@]}" <<'PY'
import os, sys, glob, xml.etree.ElementTree as ET
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
# the wall time of each tier just above the count, so that CI's tail shows where the time went
print(f"wall time per tier: {os.environ['TIERS']}")
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
rc=$?
rm -rf "$reports"
exit $rc
