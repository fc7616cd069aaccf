"""`preflight`: one GPUCHECK_RESULT line whatever the node lacks; every probe bounded."""
import json
import stat

from conftest import PYTHON, fixture_text, run_cli

from gpucheck_workload import preflight


def result(done):
    assert done.returncode == 0, done.stderr
    lines = [l for l in done.stdout.splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1
    return json.loads(lines[0][len("GPUCHECK_RESULT "):])


def script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_reports_this_interpreter_torch_and_no_gpu():
    out = result(run_cli(["preflight", "--python", PYTHON]))
    me = out["interpreters"][PYTHON]
    assert me["executable"] == PYTHON
    assert me["version"].count(".") == 2
    assert isinstance(me["torch"], str)
    # this machine has CPU torch: nothing visible, and no NCCL in a build without CUDA
    assert me["cuda_available"] is False and me["cuda_device_count"] == 0 and me["cuda_devices"] == []
    assert me["nccl_available"] is False


def test_an_interpreter_without_torch_gives_the_import_error(torchless_python):
    me = result(run_cli(["preflight", "--python", torchless_python]))["interpreters"][torchless_python]
    assert me["torch_error"] == "ModuleNotFoundError: No module named 'torch'"
    assert "torch" not in me


def test_an_interpreter_that_does_not_exist_or_fails_is_a_reason():
    assert preflight._interpreter("/nonexistent/python3") == {"error": "/nonexistent/python3 could not be run: No such file or directory"}
    assert preflight._interpreter("/bin/false") == {"error": "/bin/false exited 1 printing nothing"}


def test_an_interpreter_printing_nonsense_or_hanging_is_a_reason(tmp_path):
    noise = script(tmp_path, "noisy", "echo '{not json'\n")
    assert preflight._interpreter(noise) == {"error": "%s printed no JSON: {not json" % noise}
    slow = script(tmp_path, "slow", "sleep 5\n")
    assert preflight._interpreter(slow, timeout=0.5) == {
        "error": "%s -c <torch probe> timed out after 0.5s (importing torch or initialising CUDA hung)" % slow}


def test_nvidia_smi_names_or_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert preflight._nvidia_smi() == {"gpus": None, "error": "nvidia-smi not found"}
    # the GPU lines of `nvlink -s` are `nvidia-smi -L`'s own format (real 8 × A100 capture)
    lines = [l for l in fixture_text("nvlink-s-a100-8gpu-space-indent.txt").splitlines() if l.startswith("GPU ")]
    (tmp_path / "L.txt").write_text("\n".join(lines) + "\n")
    script(tmp_path, "nvidia-smi", 'exec /bin/cat "%s"\n' % (tmp_path / "L.txt"))
    assert preflight._nvidia_smi() == {"gpus": ["NVIDIA A100-SXM4-80GB"] * 8}
    script(tmp_path, "nvidia-smi", 'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\n')
    assert preflight._nvidia_smi() == {"gpus": None, "error": "nvidia-smi -L printed no GPU line: NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."}


def test_tools_on_path_and_nccl_tests_binaries(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert preflight._tool("nccl-tests:all_reduce") == {
        "path": None, "error": "nccl-tests binary all_reduce_perf not found on PATH (build NVIDIA/nccl-tests with MPI=1, or use --impl workload)"}
    assert preflight._tool("nccl-tests:all_gather:/opt/nccl-tests/build") == {
        "path": None, "error": "nccl-tests binary all_gather_perf not found in /opt/nccl-tests/build (build NVIDIA/nccl-tests with MPI=1, or use --impl workload)"}
    assert preflight._tool("dcgmi") == {"path": None, "error": "dcgmi not found on PATH"}
    binary = script(tmp_path, "all_reduce_perf_mpi", "exit 0\n")
    assert preflight._tool("nccl-tests:all_reduce") == {"path": binary}
    assert preflight._tool("nccl-tests:all_reduce:%s" % tmp_path) == {"path": binary}


def test_command_line_with_tools_and_two_interpreters(tmp_path):
    done = run_cli(["preflight", "--python", PYTHON, "--python", "/nonexistent/python3", "--tool", "nccl-tests:all_reduce"],
                   PATH="/usr/bin:/bin", GPUCHECK_NODE="node-7")
    out = result(done)
    assert out["hostname"] == "node-7"
    assert sorted(out["interpreters"]) == sorted([PYTHON, "/nonexistent/python3"])
    assert out["tools"]["nccl-tests:all_reduce"]["path"] is None
