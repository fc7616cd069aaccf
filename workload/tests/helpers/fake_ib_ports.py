"""Run as a rank: `fake_ib_ports.py '<{"0": [ports], "1": [ports]}>' <workload args…>`.

A stand-in for /sys/class/infiniband (this machine has none): each rank reads the port list its rank
number names instead, then runs the workload's command line unchanged."""
import json
import os
import sys

from gpucheck_workload import __main__, ib

ports = json.loads(sys.argv[1])[os.environ["RANK"]]
ib.read_sysfs = lambda root=ib.SYSFS: [dict(p) for p in ports]
sys.exit(__main__.main(sys.argv[2:]))
