"""Per-NIC RDMA bandwidth and latency between two nodes, and a TCP stream between the two ranks.

Two ranks, one per node: for each InfiniBand port (--hcas, else every port under
/sys/class/infiniband, as the inventory walks it) rank 0 starts the perftest server
(`ib_write_bw -d mlx5_N -i PORT --report_gbits -F`) and rank 1 runs the client against rank 0's
rendezvous address, one HCA at a time, then the same with ib_read_lat. A NIC looped back to itself
never crosses its cable or switch port; this pair does. Where nvidia-smi reports the topology, each
side adds --use_cuda=<the GPU nearest that HCA> (GPUDirect RDMA), with CUDA_DEVICE_ORDER=PCI_BUS_ID
so perftest's CUDA ordinal is nvidia-smi's index.

The ranks take turns through gloo: rank 0 says whether its server listens (its TCP port shows in
/proc/net/tcp), rank 1 runs the client only then, and rank 0 collects its server after the client.
The clients' raw output goes into the result; lib/parsers/perftest.ts reads it. No InfiniBand
device, a server that never listened and a timeout are each a reason, never a figure.

Where perftest is missing on either node but both have torch with NCCL and a GPU, each HCA is
measured by NCCL send/recv pinned to it instead (nic_p2p.py: a child process per HCA), its record
marked "source": "nccl-p2p"; where neither can run, every HCA's reason says why both could not.

The TCP stream (Python sockets, a bounded transfer and 1-byte round trips) runs on every node pair,
GPU or not: it measures the interface the two ranks' rendezvous address routes over, says which,
and is the only figure on a machine without RDMA.
"""
import os
import shutil
import socket
import statistics
import subprocess
import time

from .. import affinity, dist as pg, emit, ib, nic_p2p, nic_topo
from ..errors import WorkloadError, require_torch

HELP = "per-NIC RDMA bandwidth and latency between two nodes (perftest ib_write_bw/ib_read_lat, GPUDirect from the nearest GPU) and a TCP stream between the ranks"

TOOLS = {"bw": "ib_write_bw", "lat": "ib_read_lat"}
NO_IB = "no InfiniBand device (%s is empty)" % ib.SYSFS
# perftest's default port; each HCA and tool gets its own so a socket in TIME_WAIT never blocks the next
BASE_PORT = 18515
# a perftest server listens within a second; 15 s covers a cold CUDA context for --use_cuda
SERVER_START_S = 15
CHUNK = 4 * 1024 ** 2


def add_arguments(p):
    p.add_argument("--hcas", default="", help="comma-separated HCAs, each DEVICE or DEVICE:PORT (default: every port under /sys/class/infiniband)")
    p.add_argument("--size", type=int, default=1024 ** 2, help="ib_write_bw message size in bytes")
    p.add_argument("--iters", type=int, default=5000, help="ib_write_bw and ib_read_lat iterations")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds each perftest client may run")
    p.add_argument("--tcp-bytes", type=int, default=256 * 1024 ** 2, help="bytes of the TCP stream")
    p.add_argument("--tcp-pings", type=int, default=200, help="1-byte TCP round trips")
    p.add_argument("--p2p-size", type=int, default=256 * 1024 ** 2, help="bytes per NCCL send/recv message when perftest is missing")
    p.add_argument("--p2p-iters", type=int, default=20, help="timed NCCL send/recv messages per HCA when perftest is missing")


def main(args):
    from .. import ranks as ranks_mod
    return run(args, ranks_mod.detect())


def run(args, ranks):
    if ranks.world_size != 2:
        raise WorkloadError("nic pairs two ranks (one per node, rank 0 the server): this run has %d" % ranks.world_size)
    for name in ("size", "iters", "tcp_bytes", "tcp_pings", "p2p_size", "p2p_iters"):
        if getattr(args, name) < 1:
            raise WorkloadError("--%s must be at least 1, got %d" % (name.replace("_", "-"), getattr(args, name)))
    torch = require_torch()
    import torch.distributed as dist

    pg.init(ranks, "gloo")  # turns and messages only: no tensor crosses it
    try:
        share = lambda mine: _gather(dist, mine)
        me = {"host": socket.gethostname(), "hcas": _hcas(args.hcas), "near": _near(),
              "tools": {k: shutil.which(t) for k, t in TOOLS.items()}, "nccl": nic_p2p.capability(torch, dist)}
        pair = share(me)
        server, client = pair
        addr = ranks.master_addr  # rank 0 is the rendezvous host: the client reaches it there
        tcp = _tcp(ranks.rank, addr, args, share)
        # perftest where both nodes have it, else NCCL point-to-point: one tool for every HCA, so the
        # outlier rule never compares one tool's figure with the other's
        missing = nic_p2p.missing_tools(pair, TOOLS)
        no_nccl = nic_p2p.unusable(pair) if missing else None
        records = []
        for i, hca in enumerate(server["hcas"]):
            rec = dict(hca, gpu_server=_gpu(server, hca), gpu_client=_gpu(client, hca))
            if not missing:
                rec["source"] = "perftest"
                for j, kind in enumerate(("bw", "lat")):
                    rec[kind] = _pair(kind, ranks.rank, addr, BASE_PORT + 2 * i + j, hca, rec, server, client, args, share)
            elif no_nccl:
                rec["source"] = None
                rec["why"] = "%s, and NCCL point-to-point cannot stand in: %s" % (missing, no_nccl)
            else:
                rec["source"] = nic_p2p.SOURCE
                rec["perftest"] = missing
                rec["p2p"] = nic_p2p.pair(ranks.rank, addr, hca, rec, server, client, args, share)
            records.append(rec)
        if ranks.rank == 0:
            emit.tagged("RESULT", {"world_size": 2, "torch": torch.__version__, "server": {"host": server["host"], "addr": addr},
                                   "client": {"host": client["host"]}, "no_ib": NO_IB if not server["hcas"] else None,
                                   "size": args.size, "iters": args.iters, "hcas": records, "tcp": tcp})
        return 0
    finally:
        pg.close()


def _gather(dist, mine):
    everyone = [None, None]
    dist.all_gather_object(everyone, mine)
    return everyone


def _hcas(written):
    """[{device, port, rate_gbps, state, link_layer}]: the ports named, else every port sysfs lists."""
    found = ib.read_sysfs()
    if not written:
        return [{k: p.get(k) for k in ("device", "port", "rate_gbps", "state", "link_layer")} for p in found]
    out = []
    for item in filter(None, (w.strip() for w in written.split(","))):
        dev, _, port = item.partition(":")
        port = int(port) if port.isdigit() else 1
        known = next((p for p in found if p["device"] == dev and p["port"] == port), None)
        out.append({"device": dev, "port": port, "rate_gbps": known and known.get("rate_gbps"),
                    "state": known and known.get("state"), "link_layer": known and known.get("link_layer")})
    return out


def _near():
    text = affinity._topo()
    return {nic: gpu for nic, (gpu, _) in nic_topo.nearest_gpus(text).items()} if text else {}


def _gpu(side, hca):
    return side["near"].get(hca["device"])


def _command(kind, hca, port, gpu, args, peer=None):
    cmd = [TOOLS[kind], "-d", hca["device"], "-i", str(hca["port"]), "-p", str(port), "-F", "-n", str(args.iters)]
    if kind == "bw":
        cmd += ["--report_gbits", "-s", str(args.size)]
    if gpu is not None:
        cmd.append("--use_cuda=%d" % gpu)
    return cmd + ([peer] if peer else [])


def _env():
    return dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID")


def _pair(kind, rank, addr, port, hca, rec, server, client, args, share):
    """One perftest run of this HCA: rank 0 serves, rank 1 connects; the client's record on both ranks."""
    tool, dev = TOOLS[kind], hca["device"]
    proc, up = None, {}
    if rank == 0:
        proc = subprocess.Popen(_command(kind, hca, port, rec["gpu_server"], args), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True, env=_env())
        up = _listening(proc, port, "the %s server on %s for %s" % (tool, server["host"], dev))
    up = share(up)[0]
    got = {}
    if rank == 1:
        if up.get("why"):
            got = {"why": up["why"]}
        elif dev not in {h["device"] for h in client["hcas"]}:
            got = {"why": "the client node %s has no %s (its HCAs: %s)" % (client["host"], dev, ", ".join(sorted({h["device"] for h in client["hcas"]})) or "none")}
        else:
            cmd = _command(kind, hca, port, rec["gpu_client"], args, addr)
            got = _client(cmd, args.timeout, "the %s client on %s to %s for %s" % (tool, client["host"], server["host"], dev))
    got = share(got)[1]
    if proc is not None:
        _stop(proc)
    return got


def _listening(proc, port, who):
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = (proc.stdout.read() or "").strip().splitlines()
            return {"why": "%s exited with code %d before listening: %s" % (who, proc.returncode, out[-1] if out else "no output")}
        if port in _listen_ports():
            return {}
        time.sleep(0.1)
    proc.kill()  # a server that never listened has no client coming
    proc.wait()
    return {"why": "%s did not listen on port %d within %g s" % (who, port, SERVER_START_S)}


def _listen_ports():
    ports = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cells = row.split()
            if len(cells) > 3 and cells[3] == "0A":  # LISTEN
                ports.add(int(cells[1].rsplit(":", 1)[1], 16))
    return ports


def _client(cmd, timeout, who):
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                              timeout=timeout, env=_env())
    except subprocess.TimeoutExpired:
        return {"why": "%s did not finish within %g s" % (who, timeout), "command": " ".join(cmd)}
    except OSError as e:
        return {"why": "%s could not start: %s" % (who, e), "command": " ".join(cmd)}
    return {"command": " ".join(cmd), "rc": done.returncode, "output": done.stdout}


def _stop(proc):
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _tcp(rank, addr, args, share):
    """GB/s of a bounded stream rank 1 → rank 0 and the median 1-byte round trip, over the rendezvous route."""
    listener = None
    if rank == 0:
        listener = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("", 0))
        listener.listen(1)
        listener.settimeout(60)
    port = share({"port": listener.getsockname()[1]} if listener else {})[0]["port"]
    got = {}
    try:
        got = _tcp_server(listener, args) if rank == 0 else _tcp_client(addr, port, args)
    except OSError as e:
        got = {"why": "TCP stream between the ranks failed on rank %d: %s" % (rank, e)}
    finally:
        if listener:
            listener.close()
    mine = share(got)
    return mine[0] if mine[0].get("why") else mine[1]


def _tcp_server(listener, args):
    conn, _ = listener.accept()
    with conn:
        conn.settimeout(60)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        left = args.tcp_bytes
        while left > 0:
            chunk = conn.recv(min(CHUNK, left))
            if not chunk:
                raise OSError("the client closed the stream with %d bytes unsent" % left)
            left -= len(chunk)
        conn.sendall(b"k")
        for _ in range(args.tcp_pings):
            conn.sendall(_recv1(conn))
    return {}


def _recv1(conn):
    b = conn.recv(1)
    if not b:
        raise OSError("the peer closed the connection")
    return b


def _tcp_client(addr, port, args):
    with socket.create_connection((addr, port), timeout=60) as conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        local = conn.getsockname()[0]
        buf = b"\0" * min(CHUNK, args.tcp_bytes)
        start = time.perf_counter()
        left = args.tcp_bytes
        while left > 0:
            left -= conn.send(buf[:left])
        _recv1(conn)  # the server has every byte
        seconds = time.perf_counter() - start
        rtts = []
        for _ in range(args.tcp_pings):
            t = time.perf_counter()
            conn.sendall(b"p")
            _recv1(conn)
            rtts.append((time.perf_counter() - t) * 1e6)
    return {"interface": interface_of(local), "local_addr": local, "peer_addr": addr, "bytes": args.tcp_bytes,
            "seconds": seconds, "gbyte_s": args.tcp_bytes / seconds / 1e9, "rtt_us": statistics.median(rtts),
            "pings": args.tcp_pings}


def interface_of(address, ip_output=None):
    """The interface holding `address` (`ip -o addr`), "lo" for loopback; the address itself when unknown."""
    if pg.is_loopback(address):
        return "lo"
    if ip_output is None:
        try:
            ip_output = subprocess.run(["ip", "-o", "addr", "show"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       universal_newlines=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            return address
    for line in ip_output.splitlines():
        cells = line.split()
        if len(cells) > 3 and cells[3].split("/")[0] == address:
            return cells[1]
    return address
