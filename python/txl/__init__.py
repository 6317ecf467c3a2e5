"""txl: an MLIR compiler for GPU attention kernels (Hopper sm_90a).

Importing ``txl`` is cheap and imports neither torch nor the CUDA driver; see ``txl.runtime`` for loading and
launching compiled kernels.
"""

__version__ = "0.1.0"
