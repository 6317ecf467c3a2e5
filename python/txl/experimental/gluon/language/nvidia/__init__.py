"""``gluon.language.nvidia``: ``hopper`` (TMA, mbarriers, wgmma), ``ampere`` (cp.async), ``blackwell`` (refused
with located errors: txl's tcgen05 MMAs are ``txl.dotx``)."""

from . import ampere, blackwell, hopper  # noqa: F401
