"""The attention config sweep on a GPU (attention_sweep.py): every autotuning config of every kernel of txl.ops over
grids with fewer tiles than SMs, exactly one wave, a non-multiple of the SM count and many tiles per CTA, causal and
not, GQA/MQA, N not a multiple of the block, built with bounded mbarrier waits. One child process per (kernel, head
dim): a deadlock traps there with txl's message (the barrier's source line), and the test reports it instead of
freezing. Skipped without a GPU; needs txlc (TXL_TXLC) or a cache filled by ``attention_sweep --precompile``."""

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA GPU (torch.cuda.is_available() is false)", allow_module_level=True)

from txl.ops import attention as A  # noqa: E402

pytestmark = pytest.mark.gpu
GROUPS = [(k, d) for k, (_, _, _, _, cfgs) in A.KERNELS.items() for d in sorted(cfgs)]
TIMEOUT_S = 300


def _child(args, timeout):
    env = dict(os.environ, PYTHONUNBUFFERED="1", TXL_DEBUG_HANGS="1")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    try:
        r = subprocess.run([sys.executable, "-m", "txl.tests.gpu.attention_sweep"] + args, env=env,
                           capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out


@pytest.fixture(scope="module", autouse=True)
def _precompiled():
    rc, out = _child(["--precompile"], 1800)
    assert rc == 0, "compiling the sweep failed:\n" + out[-4000:]


@pytest.mark.parametrize("kernel,head_dim", GROUPS, ids=["%s-hd%d" % g for g in GROUPS])
def test_every_config_every_grid(kernel, head_dim):
    rc, out = _child(["--kernel", kernel, "--head-dim", str(head_dim)], TIMEOUT_S)
    lines = [ln for ln in out.splitlines() if ln.startswith("SWEEP")]
    print("\n".join(lines))
    if rc is None:
        pytest.fail("the sweep of %s hd%d froze (killed after %d s) although mbarrier waits are bounded: a named "
                    "barrier deadlock? last lines:\n%s" % (kernel, head_dim, TIMEOUT_S, "\n".join(out.splitlines()[-20:])))
    hang = [ln for ln in out.splitlines() if "mbarrier wait timed out" in ln]
    assert not hang, "deadlock (debug hangs):\n" + "\n".join(hang[:5] + out.splitlines()[-10:])
    failed = [ln for ln in lines if ln.startswith("SWEEP FAIL")]
    assert rc == 0 and "SWEEP done" in out and not failed, "\n".join(failed) + "\n" + out[-3000:]
