"""``tl.extra.cuda`` (``txl.language.extra.cuda``)."""

from . import libdevice  # noqa: F401
