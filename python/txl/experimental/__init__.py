"""``txl.experimental``: Triton's experimental languages on txl (``txl.experimental.gluon``)."""
