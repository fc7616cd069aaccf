#!/usr/bin/env bash
# The unit tier (npm test): bun test on everything outside test/integration/ (bunfig.toml), then its
# 10 slowest tests from bun's JUnit report (scripts/slowest-tests.ts), so that a slow test is seen in
# every run. Arguments go to bun test; a --reporter-outfile given (scripts/test.sh's) is the report read.
#   npm test
#   npm test -- test/report/junit.test.ts
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
report=""
for a in "$@"; do [[ $a == --reporter-outfile=* ]] && report=${a#--reporter-outfile=}; done
own=""
if [ -z "$report" ]; then
  own=$(mktemp -d)
  report="$own/unit.xml"
  set -- --reporter=junit --reporter-outfile="$report" "$@"
fi
bun test --timeout 120000 --parallel=4 "$@"
rc=$?
bun scripts/slowest-tests.ts "$report" 10 >&2
[ -n "$own" ] && rm -rf "$own"
exit $rc
