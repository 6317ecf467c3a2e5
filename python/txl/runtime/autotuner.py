"""``triton.runtime.autotuner`` under txl: ``Autotuner``, ``Heuristics``, ``Config``, ``autotune``, ``heuristics``.

Libraries subclass Triton's classes with Triton's constructors; flash-linear-attention's ``CachedAutotuner`` does

    class CachedAutotuner(Autotuner):
        def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs):
            super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, **kwargs)
            ...                                   # reads self.user_defined_pre_hook, self.reset_to_zero, ...
        def run(self, *args, **kwargs):
            ...                                   # may put a Config into self.cache[Triton's tuning key]
            return super().run(*args, **kwargs)

The classes here are txl's (``txl.autotune.Autotuner`` / ``Heuristics``: txl's benchmarking, concurrent compiles,
results kept on disk, configs that fault or hang recorded) with Triton's constructor signatures; ``txl.autotune``
and ``txl.heuristics`` return instances of them, so ``isinstance(kernel, Autotuner)`` holds for decorated kernels.
What the state means is documented on ``txl.autotune.Autotuner``.
"""

from ..autotune import Autotuner as _TxlAutotuner
from ..autotune import Config, autotune, heuristics  # noqa: F401  (Triton's module has them too)
from ..autotune import Heuristics as _TxlHeuristics
from .errors import OutOfResources  # noqa: F401


class Autotuner(_TxlAutotuner):
    """Triton 3.6's ``Autotuner(fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None,
    post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
    cache_results=False)``. ``cache_results`` defaults to False as in Triton (``txl.autotune`` passes txl's
    default, True: the choice is kept on disk). txl's keyword-only extras: ``bench(call) -> ms`` (a timer; tests
    use a fake one) and ``verbose`` (a line per benchmarked config, default True)."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False, *, bench=None, verbose=True):
        _check_arg_names("Autotuner", fn, arg_names)
        super().__init__(fn, configs, key, warmup, rep, bench, cache_results, verbose,
                         prune_configs_by=prune_configs_by, reset_to_zero=reset_to_zero,
                         restore_value=restore_value, pre_hook=pre_hook, post_hook=post_hook, do_bench=do_bench,
                         use_cuda_graph=use_cuda_graph)


class Heuristics(_TxlHeuristics):
    """Triton's ``Heuristics(fn, arg_names, values)``."""

    def __init__(self, fn, arg_names, values):
        if getattr(fn, "arg_names", None) is not None:
            _check_arg_names("Heuristics", fn, arg_names)
        super().__init__(fn, values)


def _check_arg_names(what, fn, arg_names):
    # Triton zips the positional arguments with arg_names; txl binds them through the function's own signature.
    # Both agree when arg_names is fn.arg_names (what Triton's decorators and the libraries pass); anything else
    # would name the arguments differently from the launch, so it is refused rather than half-honoured.
    names = getattr(fn, "arg_names", None)
    if arg_names is not None and names is not None and list(arg_names) != list(names):
        raise ValueError("txl.runtime.autotuner.%s(fn, arg_names=%r, ...): txl takes the parameter names from the "
                         "function, whose are %r; pass fn.arg_names" % (what, list(arg_names), list(names)))
