"""Run `burn` with RANK 1 slowed for real: it is confined to one CPU, which it shares with a busy
process that spins 50 ms of every 100 (a noisy neighbour, a runaway daemon); RANK 0 keeps every CPU
it was given. Then exit with the workload's code, the busy process stopped."""
import os
import subprocess
import sys

from gpucheck_workload import __main__ as cli

BUSY = "import time\nwhile True:\n    t = time.perf_counter()\n    while time.perf_counter() - t < 0.05:\n        pass\n    time.sleep(0.05)\n"

cpus = sorted(os.sched_getaffinity(0))
slowed = os.environ["RANK"] == "1"
busy = None
if slowed:
    os.sched_setaffinity(0, {cpus[-1]})
    busy = subprocess.Popen([sys.executable, "-c", BUSY])  # inherits the one CPU
try:
    code = cli.main(sys.argv[1:])
finally:
    if busy:
        busy.kill()
        busy.wait()
sys.exit(code)
