"""Training on real gloo ranks: DDP ResNet-18 on a generated FashionMNIST set, a small GPT."""
import json

from conftest import run_ranks


def result_of(out):
    lines = [l for l in out.splitlines() if l.startswith("GPUCHECK_RESULT ")]
    assert len(lines) == 1, out
    return json.loads(lines[0].split(" ", 1)[1])


def test_two_rank_resnet18_learns_generated_fashionmnist(fashion_dir):
    args = ["train", "--model", "resnet18", "--data", "fashionmnist", "--data-dir", fashion_dir,
            "--batch-size", "16", "--steps", "14", "--warmup-steps", "2", "--seed", "1"]
    (rc0, out0, err0), (rc1, out1, err1) = run_ranks(2, args, timeout=150)
    assert (rc0, rc1) == (0, 0), err0 + err1
    assert "GPUCHECK_RESULT" not in out1 and "GPUCHECK_PROGRESS" not in out1
    r = result_of(out0)
    assert (r["model"], r["data"], r["world_size"], r["device"], r["precision"], r["batch_size"], r["steps"]) == \
        ("resnet18", "fashionmnist", 2, "cpu", "fp32", 16, 14)
    assert r["samples_per_s"] > 0 and abs(r["samples_per_s_per_gpu"] * 2 - r["samples_per_s"]) < 1e-6
    assert r["tokens_per_s"] is None and r["tflops"] is None
    st = r["step_time_ms"]
    assert 0 < st["p50"] <= st["p95"] and st["mean"] > 0
    assert 0 < r["allreduce_share"] < 1 and r["allreduce_ms"] > 0
    assert r["loss_end"] < r["loss_start"]
    # each rank's own loss, the mean of its last 5 steps: both learn here
    assert [(x["rank"], x["device"], x["loss_end_steps"]) for x in r["ranks"]] == [(0, "cpu", 5), (1, "cpu", 5)]
    assert all(x["loss_end"] < x["loss_start"] for x in r["ranks"])
    assert r["accuracy"] > 0.8  # chance is 0.1; BatchNorm statistics are recomputed before evaluating
    assert [h["step"] for h in r["history"]] == list(range(1, 15))
    progress = [json.loads(l.split(" ", 1)[1]) for l in out0.splitlines() if l.startswith("GPUCHECK_PROGRESS ")]
    assert progress[-1]["step"] == 14 and progress[-1]["steps"] == 14


def test_transformer_reports_tokens_and_tflops():
    args = ["train", "--model", "transformer", "--layers", "2", "--width", "64", "--heads", "4", "--seq-len", "32",
            "--vocab", "128", "--batch-size", "8", "--steps", "30", "--warmup-steps", "3", "--lr", "3e-3"]
    [(rc, out, err)] = run_ranks(1, args, timeout=90)
    assert rc == 0, err
    r = result_of(out)
    assert r["tokens_per_s"] == r["samples_per_s"] * 32
    # (6 * N + 12 * layers * seq_len * width) * tokens/s, N = all parameters but the position table
    n = r["params"] - 32 * 64
    assert abs(r["tflops"] - (6 * n + 12 * 2 * 32 * 64) * r["tokens_per_s"] / 1e12) < 1e-9
    assert r["accuracy"] is None and r["loss_end"] < r["loss_start"] - 1
