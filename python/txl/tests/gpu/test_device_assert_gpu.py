"""tl.device_assert and run-time ``assert`` under @txl.jit(debug=True) on the GPU: a passing check changes
nothing; a failing one prints CUDA's assertion message with the user's file, line and kernel and stops the kernel
(cudaErrorAssert on the host); without debug the check is compiled out. Each case runs in a child process
(device_assert_child.py), since a failed assertion leaves the CUDA context unusable."""

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

pytestmark = pytest.mark.gpu


def _child(mode):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TRITON_DEBUG", None)
    env.pop("TXL_DEBUG", None)
    r = subprocess.run([sys.executable, "-m", "txl.tests.gpu.device_assert_child", mode], env=env,
                       capture_output=True, text=True, timeout=180)
    return r.returncode, r.stdout + r.stderr


def test_passing_assertions_change_nothing():
    rc, out = _child("pass")
    assert rc == 0 and "CHILD pass: finished, y correct" in out, out[-3000:]


def test_failing_assertion_stops_the_kernel_with_its_message():
    rc, out = _child("fail")
    assert rc != 0 and "CHILD fail: finished" not in out, out[-3000:]
    # CUDA's __assertfail message: "<file>:<line>: <function>: block: [x,y,z], thread: [x,y,z] Assertion `msg` failed."
    assert "device_assert_child.py:16: checked_copy" in out, out[-3000:]
    assert "Assertion `x below the limit` failed" in out, out[-3000:]
    assert "block: [3,0,0]" in out, out[-3000:]  # element 777 is in program 3
    assert "device-side assert" in out or "cudaErrorAssert" in out or "CUDA_ERROR_ASSERT" in out, out[-3000:]


def test_without_debug_the_check_is_compiled_out():
    rc, out = _child("off")
    assert rc == 0 and "CHILD off: finished, y correct" in out, out[-3000:]
