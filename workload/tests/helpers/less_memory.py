"""Run `collective` as a rank whose host reports MemAvailable: 64 KiB when RANK is 1 (as a rank on
a smaller or busier node would), then exit with the workload's code."""
import os
import sys

from gpucheck_workload import __main__ as cli
from gpucheck_workload.kinds import collective

if os.environ["RANK"] == "1":
    collective._host_available = lambda: 64 << 10
sys.exit(cli.main(sys.argv[1:]))
