"""A spin lock on tl.atomic_cas (Triton's tutorial 05 pattern) with num_warps 4 and 8: the lock is taken once per
program and the locked read-modify-write sums exactly. A regression hangs, so the kernel runs in a child process
with a timeout (spin_lock_child.py)."""

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

pytestmark = pytest.mark.gpu


def test_spin_lock_num_warps_4_and_8():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        r = subprocess.run([sys.executable, "-m", "txl.tests.gpu.spin_lock_child"], env=env, capture_output=True,
                           text=True, timeout=240)
    except subprocess.TimeoutExpired as e:
        pytest.fail("the spin-lock kernel hung (child killed after 240 s); output so far:\n%s"
                    % (e.stdout or b"").decode(errors="replace"))
    out = r.stdout + r.stderr
    assert "CHILD num_warps=4: total correct" in out, out[-3000:]
    assert "CHILD num_warps=8: total correct" in out, out[-3000:]
