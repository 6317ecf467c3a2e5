"""``gluon.nvidia``: the host side (``gluon.nvidia.hopper.TensorDescriptor``)."""

from . import blackwell, hopper  # noqa: F401
