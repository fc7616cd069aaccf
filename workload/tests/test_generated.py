import os
import stat

import pytest

from gpucheck_workload import data, fakedata
from gpucheck_workload.errors import WorkloadError

FILES = ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """XDG_CACHE_HOME in the test's own directory, and TMPDIR beside it: what generated_dir writes where."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp))
    return tmp_path


def test_generated_fashionmnist_is_made_once_in_the_users_cache_and_found_by_the_real_loader(cache):
    first = fakedata.generated_dir("fashionmnist")
    assert first == str(cache / "xdg" / "gpucheck" / "fashionmnist-v1-2048-512-0")
    assert stat.S_IMODE(os.lstat(str(cache / "xdg" / "gpucheck")).st_mode) == 0o700
    mtime = os.path.getmtime(os.path.join(first, "train-images-idx3-ubyte.gz"))
    assert fakedata.generated_dir("fashionmnist") == first
    assert os.path.getmtime(os.path.join(first, "train-images-idx3-ubyte.gz")) == mtime
    found = data.locate("fashionmnist", first)
    assert sorted(os.path.basename(p) for p in found.values()) == sorted(FILES)
    # no private copies left behind, nothing in the temp dir
    assert [n for n in os.listdir(str(cache / "xdg" / "gpucheck")) if n.startswith(".")] == []
    assert os.listdir(str(cache / "tmp")) == []


def test_without_xdg_cache_home_the_cache_is_under_home(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert fakedata.cache_root() == str(tmp_path / ".cache" / "gpucheck")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # ignored, as the XDG spec says
    assert fakedata.cache_root() == str(tmp_path / ".cache" / "gpucheck")


def planted_set(where):
    """A set someone else left: files a rank would read if it trusted the directory."""
    os.makedirs(where, exist_ok=True)
    for f in FILES:
        with open(os.path.join(where, f), "wb") as fh:
            fh.write(b"planted")


def refused(capsys, path, why, result, cache):
    err = capsys.readouterr().err
    assert err == ("gpucheck: the generated data set cache %s %s: not read; making the set in a private temporary directory "
                   "(remove it, or set XDG_CACHE_HOME to a directory of your own)\n" % (path, why))
    # made afresh in a 0700 temp dir, and a real set: the planted files were not read
    assert os.path.dirname(result) == str(cache / "tmp")
    assert os.path.basename(result).startswith("gpucheck-fashionmnist-v1-")
    assert stat.S_IMODE(os.lstat(result).st_mode) == 0o700
    with open(os.path.join(result, "train-labels-idx1-ubyte.gz"), "rb") as fh:
        assert fh.read() != b"planted"


def test_a_cache_that_is_a_symlink_is_not_read(cache, capsys):
    elsewhere = cache / "elsewhere"
    planted_set(str(elsewhere / "fashionmnist-v1-2048-512-0"))
    (cache / "xdg").mkdir()
    os.symlink(str(elsewhere), str(cache / "xdg" / "gpucheck"))
    result = fakedata.generated_dir("fashionmnist")
    refused(capsys, str(cache / "xdg" / "gpucheck"), "is a symlink", result, cache)


def test_a_cache_others_can_write_is_not_read(cache, capsys):
    root = cache / "xdg" / "gpucheck"
    planted_set(str(root / "fashionmnist-v1-2048-512-0"))
    os.chmod(str(root), 0o777)
    result = fakedata.generated_dir("fashionmnist")
    refused(capsys, str(root), "is writable by group or others (mode 777)", result, cache)


def test_a_set_that_is_a_symlink_inside_the_cache_is_not_read(cache, capsys):
    root = cache / "xdg" / "gpucheck"
    root.mkdir(parents=True, mode=0o700)
    planted_set(str(cache / "elsewhere"))
    os.symlink(str(cache / "elsewhere"), str(root / "fashionmnist-v1-2048-512-0"))
    result = fakedata.generated_dir("fashionmnist")
    refused(capsys, str(root / "fashionmnist-v1-2048-512-0"), "is a symlink", result, cache)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="making a directory another user owns takes root (CI runs as root)")
def test_another_users_cache_is_not_read(cache, capsys):
    root = cache / "xdg" / "gpucheck"
    planted_set(str(root / "fashionmnist-v1-2048-512-0"))
    os.chmod(str(root), 0o755)
    os.chown(str(root), 65534, 65534)
    result = fakedata.generated_dir("fashionmnist")
    refused(capsys, str(root), "belongs to uid 65534, not to this user (uid 0)", result, cache)


def test_generated_is_only_for_fashionmnist():
    with pytest.raises(WorkloadError, match="--data-dir @generated can only generate fashionmnist, not cifar10"):
        fakedata.generated_dir("cifar10")
