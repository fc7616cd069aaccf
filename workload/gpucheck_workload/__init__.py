"""gpucheck workload: runs on the nodes (collective, train, inventory, telemetry)."""
