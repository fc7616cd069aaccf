"""gpucheck workload: runs on the nodes (collective, train, inventory, telemetry)."""

__version__ = "0.1.0"
