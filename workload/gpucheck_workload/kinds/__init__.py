"""The test kinds this workload runs, by the name gpucheck's `kind:` gives them (lib/kinds/mod.ts).

Each module has HELP, add_arguments(parser) and main(args) -> exit code, and imports torch only
inside main: `inventory` must start on a node without torch.
"""
from . import burn, collective, dcgm, gemm, inventory, membw, nic, nic_loopback, nvlink, pcie, storage, train

KINDS = {
    "collective": collective,
    "train": train,
    "inventory": inventory,
    "gemm": gemm,
    "membw": membw,
    "pcie": pcie,
    "nvlink": nvlink,
    "dcgm": dcgm,
    "burn": burn,
    "nic": nic,
    "storage": storage,
    "nic-loopback": nic_loopback,
}
