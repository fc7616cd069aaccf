"""What names a rank's device in a kind's result: the GPU's index as nvidia-smi counts it, its UUID
and PCI bus (torch's own index is renumbered by CUDA_VISIBLE_DEVICES), or the CPU model.

Shared by the per-GPU kinds (gemm, membw, pcie) so every verdict names a GPU the same way.
"""
import subprocess

NVIDIA_SMI_TIMEOUT_S = 30


def identity(torch, device):
    """{type, name, index, uuid, pci_bus_id, ...}; on a GPU `unnamed` says why index/uuid/bus are null."""
    if device.type != "cuda":
        from . import cpu
        return {"type": "cpu", "name": cpu.model(), "index": None, "uuid": None, "pci_bus_id": None}
    props = torch.cuda.get_device_properties(device)
    uuid = getattr(props, "uuid", None)  # torch >= 2.0
    uuid = None if uuid is None else ("GPU-%s" % uuid if not str(uuid).startswith("GPU-") else str(uuid))
    found = nvidia_smi_gpu(uuid) if uuid else None
    return {"type": "cuda", "name": props.name, "cuda_index": device.index,
            "capability": "%d.%d" % (props.major, props.minor),
            "index": found["index"] if found else None, "uuid": uuid,
            "pci_bus_id": found["pci_bus_id"] if found else None,
            "unnamed": None if found else ("torch %s gives no GPU UUID" % torch.__version__ if not uuid else "nvidia-smi did not list %s" % uuid)}


def nvidia_smi_gpu(uuid):
    """nvidia-smi's index and PCI bus id of the GPU with this UUID; None when it cannot say."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,pci.bus_id", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and parts[1] == uuid:
            return {"index": int(parts[0]), "pci_bus_id": parts[2]}
    return None
