"""A config that faults while autotuning (a sticky CUDA error: the process's context is lost) is reported by name
with the reason, recorded in the autotuning results, and skipped by the next process, which tunes the remaining
configs and runs. Each run is a child process (the first one's context is gone by design)."""

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

pytestmark = pytest.mark.gpu


def _child(which, env):
    r = subprocess.run([sys.executable, "-m", "txl.tests.gpu.autotune_fault_child", which], env=env,
                       capture_output=True, text=True, timeout=300)
    return r.stdout + r.stderr


def test_faulting_config_is_reported_recorded_and_skipped(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = dict(os.environ, TXL_CACHE_DIR=str(tmp_path / "cache"), PYTHONUNBUFFERED="1",
               PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    first = _child("first", env)
    assert "CHILD first: RuntimeError" in first and "STRIDE=1048576" in first, first[-3000:]
    assert "faulted" in first and "restart the process" in first, first[-3000:]
    second = _child("second", env)
    assert "faulted in an earlier process" in second, second[-3000:]
    assert "CHILD second: ran, result correct" in second, second[-3000:]
