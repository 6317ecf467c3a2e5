"""``gluon.nvidia.blackwell.TensorDescriptor``: the same host descriptor as Hopper's."""

from .hopper import TensorDescriptor  # noqa: F401
