"""The command line as the harness sees it: exit codes, one-line errors, commands without torch."""
import json
import os
import signal
import stat
import subprocess
import time

import pytest

from conftest import PYTHON, run_cli, workload_env


def one_error_line(done, code, message):
    assert done.returncode == code
    assert done.stderr == "gpucheck-workload: error: %s\n" % message
    assert done.stdout == ""


def test_missing_fashionmnist_names_the_files_and_where(tmp_path):
    done = run_cli(["train", "--data", "fashionmnist", "--data-dir", str(tmp_path)])
    one_error_line(done, 2, "fashionmnist files not found: expected train-images-idx3-ubyte, train-labels-idx1-ubyte, "
                            "t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (raw or .gz) in %s or %s/FashionMNIST/raw "
                            "(nothing is downloaded at run time)" % (tmp_path, tmp_path))


def test_partly_staged_fashionmnist_names_only_what_is_missing(tmp_path, fashion_dir):
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"):
        os.symlink(os.path.join(fashion_dir, name), str(tmp_path / name))
    done = run_cli(["train", "--data", "fashionmnist", "--data-dir", str(tmp_path)])
    one_error_line(done, 2, "fashionmnist files not found: expected t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte "
                            "(raw or .gz) in %s or %s/FashionMNIST/raw (nothing is downloaded at run time)" % (tmp_path, tmp_path))


@pytest.mark.parametrize("data,files,sub", [
    ("cifar10", "data_batch_1, data_batch_2, data_batch_3, data_batch_4, data_batch_5, test_batch", "cifar-10-batches-py"),
    ("cifar100", "train, test", "cifar-100-python"),
])
def test_missing_cifar(tmp_path, data, files, sub):
    done = run_cli(["train", "--data", data, "--data-dir", str(tmp_path)])
    one_error_line(done, 2, "%s files not found: expected %s in %s/%s or %s (nothing is downloaded at run time)"
                   % (data, files, tmp_path, sub, tmp_path))


def test_real_data_needs_a_data_dir():
    one_error_line(run_cli(["train", "--data", "cifar10"]), 2,
                   "--data cifar10 needs --data-dir: the directory holding the pre-staged files")


def test_missing_torch_is_one_line_exit_3(torchless_python):
    for args in (["train"], ["collective"]):
        done = run_cli(args, python=torchless_python)
        one_error_line(done, 3, "PyTorch is not installed for %s: No module named 'torch'" % torchless_python)


def test_inventory_and_telemetry_run_without_torch(torchless_python):
    done = run_cli(["inventory"], python=torchless_python)
    assert done.returncode == 0, done.stderr
    inv = json.loads(done.stdout.split(" ", 1)[1])
    assert inv["torch"] is None and inv["cpu"]["cores"] >= 1 and inv["hostname"]
    if not inv["gpus"]:
        assert inv["no_gpu_reason"]
    done = run_cli(["telemetry", "--interval", "0.2", "--duration", "0.5"], python=torchless_python)
    samples = [json.loads(l.split(" ", 1)[1]) for l in done.stdout.splitlines()]
    # the baseline with counters, two or three samples, the final one with counters again
    assert done.returncode == 0 and 3 <= len(samples) <= 5
    assert "counters" in samples[0] and samples[-1]["final"] is True and "counters" in samples[-1]
    assert all(set(s) >= {"t", "host", "gpus", "xids", "cpu_util_pct", "load1"} for s in samples)


@pytest.mark.parametrize("args,message", [
    (["collective", "--op", "allreduce"], "argument --op: invalid choice: 'allreduce' (choose from 'all_reduce', "
                                          "'all_gather', 'reduce_scatter', 'alltoall', 'broadcast')"),
    (["collective", "--min-bytes", "12Q"], "argument --min-bytes: '12Q' is not a byte count (e.g. 8, 1048576, 64M, 8G)"),
    (["collective", "--factor", "1"], "--factor must be an integer of at least 2, got 1.0"),
    (["collective", "--min-bytes", "2M", "--max-bytes", "1M"], "--min-bytes 2097152 is larger than --max-bytes 1048576"),
    (["train", "--steps", "5", "--warmup-steps", "5"], "--warmup-steps must be at least 0 and below --steps (5), got 5"),
    (["train", "--model", "transformer", "--data", "cifar10"], "--model transformer trains on --data synthetic only (the image data sets have no tokens)"),
    (["train", "--model", "transformer", "--width", "100", "--heads", "12"], "--width (100) must be a positive multiple of --heads (12)"),
    ([], "the following arguments are required: <command>"),
    (["--telemetry-interval", "0", "inventory"], "--telemetry-interval must be positive, got 0.0"),
])
def test_bad_input_is_one_line_exit_2(args, message):
    one_error_line(run_cli(args), 2, message)


def fake_nccl_tests(tmp_path, body="echo \"$(basename $0) $*\"; exit 0"):
    path = tmp_path / "all_reduce_perf"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(tmp_path)


def untagged(stdout):
    """The binary's own output: without the GPUCHECK_NCCL record of NCCL's debug capture."""
    return "".join(l for l in stdout.splitlines(True) if not l.startswith("GPUCHECK_NCCL"))


def test_nccl_tests_missing_binary_exit_3(tmp_path):
    one_error_line(run_cli(["collective", "--impl", "nccl-tests", "--nccl-tests-dir", str(tmp_path)]), 3,
                   "nccl-tests binary all_reduce_perf not found in %s (build NVIDIA/nccl-tests with MPI=1, or use --impl workload)" % tmp_path)


def test_nccl_tests_gets_the_same_sweep_and_its_output_is_untouched(tmp_path):
    d = fake_nccl_tests(tmp_path)
    args = ["collective", "--impl", "nccl-tests", "--nccl-tests-dir", d, "--min-bytes", "8", "--max-bytes", "8G",
            "--factor", "2", "--iters", "20", "--warmup", "5", "--dtype", "half", "--no-check"]
    done = run_cli(args, RANK=0, WORLD_SIZE=8, LOCAL_RANK=0, LOCAL_WORLD_SIZE=8, MASTER_ADDR="127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert untagged(done.stdout) == "all_reduce_perf -b 8 -e 8589934592 -f 2 -n 20 -w 5 -d half -c 0 -g 8\n"
    # the other ranks of the node leave the node's GPUs to local rank 0's process
    idle = run_cli(args, RANK=3, WORLD_SIZE=8, LOCAL_RANK=3, LOCAL_WORLD_SIZE=8, MASTER_ADDR="127.0.0.1")
    assert (idle.returncode, idle.stdout) == (0, "")
    # under an MPI launcher every rank is one nccl-tests rank with one GPU
    mpi = run_cli(args, OMPI_COMM_WORLD_RANK=5, OMPI_COMM_WORLD_SIZE=16, OMPI_COMM_WORLD_LOCAL_RANK=5,
                  OMPI_COMM_WORLD_LOCAL_SIZE=8, MASTER_ADDR="n1")
    assert untagged(mpi.stdout).endswith(" -g 1\n")


def test_nccl_tests_under_mpi_with_one_visible_gpu_uses_device_0(tmp_path):
    # nccl-tests would pick device localRank (5 here) of the one this rank can see
    d = fake_nccl_tests(tmp_path, 'echo "device=${NCCL_TESTS_DEVICE-unset} $*"')
    mpi = dict(OMPI_COMM_WORLD_RANK=5, OMPI_COMM_WORLD_SIZE=16, OMPI_COMM_WORLD_LOCAL_RANK=5,
               OMPI_COMM_WORLD_LOCAL_SIZE=8, MASTER_ADDR="n1")
    args = ["collective", "--impl", "nccl-tests", "--nccl-tests-dir", d, "--max-bytes", "1M"]
    one = run_cli(args, CUDA_VISIBLE_DEVICES="5", **mpi)
    assert untagged(one.stdout) == "device=0 -b 8 -e 1048576 -f 2 -n 20 -w 5 -d float -c 1 -g 1\n", one.stderr
    # every GPU visible (or unset): nccl-tests' own local rank picks the device
    for visible in ({"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"}, {}):
        every = run_cli(args, **dict(mpi, **visible))
        assert untagged(every.stdout).startswith("device=unset -b 8 "), every.stderr


def test_nccl_tests_device_env():
    from gpucheck_workload import nccl_tests
    assert nccl_tests.child_env({"CUDA_VISIBLE_DEVICES": "GPU-8f3e"}, "mpi")["NCCL_TESTS_DEVICE"] == "0"
    assert nccl_tests.child_env({"CUDA_VISIBLE_DEVICES": " 3 ,"}, "mpi")["NCCL_TESTS_DEVICE"] == "0"
    # one process driving the node's GPUs starts at device 0 anyway; a user's choice stands
    assert "NCCL_TESTS_DEVICE" not in nccl_tests.child_env({"CUDA_VISIBLE_DEVICES": "3"}, "node")
    assert nccl_tests.child_env({"CUDA_VISIBLE_DEVICES": "3", "NCCL_TESTS_DEVICE": "0"}, "mpi")["NCCL_TESTS_DEVICE"] == "0"
    assert "NCCL_TESTS_DEVICE" not in nccl_tests.child_env({"CUDA_VISIBLE_DEVICES": ""}, "mpi")


def test_nccl_tests_exit_code_passes_through_and_multi_node_needs_mpi(tmp_path):
    d = fake_nccl_tests(tmp_path, "echo '# Out of bounds values : 3 FAILED'; exit 7")
    done = run_cli(["collective", "--impl", "nccl-tests", "--nccl-tests-dir", d])
    assert (done.returncode, untagged(done.stdout)) == (7, "# Out of bounds values : 3 FAILED\n")
    one_error_line(run_cli(["collective", "--impl", "nccl-tests", "--nccl-tests-dir", d], RANK=0, WORLD_SIZE=16,
                           LOCAL_RANK=0, LOCAL_WORLD_SIZE=8, MASTER_ADDR="n1"), 2,
                   "--impl nccl-tests across 16 ranks on several nodes needs an MPI launcher (mpirun, srun --mpi=pmix): "
                   "the binaries get their world from MPI")


def test_global_inventory_and_telemetry_around_a_command(tmp_path, torchless_python):
    d = fake_nccl_tests(tmp_path, "sleep 0.8; echo done")
    done = run_cli(["--inventory", "--telemetry-interval", "0.2", "collective", "--impl", "nccl-tests", "--nccl-tests-dir", d],
                   python=torchless_python)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("GPUCHECK_INVENTORY {")
    assert json.loads(lines[0].split(" ", 1)[1])["hostname"]
    assert "done" in lines
    assert len([l for l in lines if l.startswith("GPUCHECK_TELEMETRY {")]) >= 2
    # a rank that is not its node's first prints neither
    quiet = run_cli(["--inventory", "--telemetry-interval", "0.2", "collective", "--impl", "nccl-tests", "--nccl-tests-dir", d],
                    python=torchless_python, RANK=1, WORLD_SIZE=2, LOCAL_RANK=1, LOCAL_WORLD_SIZE=2, MASTER_ADDR="127.0.0.1")
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_telemetry_stops_cleanly_on_sigterm_and_sigint():
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([PYTHON, "-m", "gpucheck_workload", "telemetry", "--interval", "0.1"], env=workload_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        first = p.stdout.readline()
        assert first.startswith("GPUCHECK_TELEMETRY {"), p.stderr.read()
        time.sleep(0.3)
        p.send_signal(sig)
        out, err = p.communicate(timeout=10)
        assert p.returncode == 0 and err == ""
        assert all(l.startswith("GPUCHECK_TELEMETRY {") for l in out.splitlines())


def test_nccl_backend_without_a_gpu():
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    import socket
    one_error_line(run_cli(["collective", "--backend", "nccl"]), 2,
                   "rank 0 on %s: --backend nccl needs a GPU but torch %s sees none (torch.cuda.is_available() is False): "
                   "no GPU work runs on a CPU; check the NVIDIA driver and CUDA_VISIBLE_DEVICES on this node"
                   % (socket.gethostname(), torch.__version__))
