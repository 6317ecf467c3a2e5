"""Gluon's layout classes and the txl dialect attribute each one is.

The classes are txl.language's (``BlockedLayout``, ``SliceLayout``, ``DistributedLinearLayout``,
``NVMMADistributedLayout``, ``DotOperandLayout``, ``NVMMASharedLayout``, ``SwizzledSharedLayout``: Gluon's
constructors and field names), so a layout built on the host (``gl.NVMMASharedLayout.get_default_for``) and one built
in a kernel compare equal. ``layout_attr`` gives the txl attribute a register layout is: every one of them maps onto
the dialect's LinearLayout (docs/gluon.md), so what the kernel names is what its tile gets.
"""

from dataclasses import dataclass

from ....errors import SemanticError
from ....language.layouts import (AutoLayout, BlockedLayout, DistributedLinearLayout, DotOperandLayout,
                                  NVMMADistributedLayout, NVMMASharedLayout, SliceLayout, SwizzledSharedLayout,
                                  _Layout)
from ....language.core import _unwrap

__all__ = ["AutoLayout", "BlockedLayout", "DistributedLinearLayout", "DotOperandLayout", "NVMMADistributedLayout",
           "NVMMASharedLayout", "SliceLayout", "SwizzledSharedLayout", "PaddedSharedLayout", "SharedLinearLayout",
           "CoalescedLayout", "layout_attr", "is_distributed", "is_shared"]


def _bases(bs):
    return "[" + ", ".join("[" + ", ".join(str(int(_unwrap(x))) for x in b) + "]" for b in bs) + "]"


def layout_attr(layout, what):
    """The txl attribute of a Gluon register layout (``#txl.blocked<...>``, ``#txl.slice<...>``, ``#txl.linear<...>``,
    ``#txl.nvmma<...>``, ``#txl.dot_operand<...>``); a SemanticError for a layout that is not one."""
    layout = _unwrap(layout)
    if isinstance(layout, DistributedLinearLayout):
        if any(any(int(_unwrap(x)) for x in b) for b in layout.block_bases):
            raise SemanticError("%s: DistributedLinearLayout with non-zero block_bases (CTAs of a cluster): txl's "
                                "register layouts span one CTA" % what, "use block_bases=[]")
        return "#txl.linear<register = %s, lane = %s, warp = %s>" % (_bases(layout.reg_bases),
                                                                      _bases(layout.lane_bases),
                                                                      _bases(layout.warp_bases))
    if isinstance(layout, SliceLayout):
        return "#txl.slice<dim = %d, parent = %s>" % (int(_unwrap(layout.dim)), layout_attr(layout.parent, what))
    if isinstance(layout, DotOperandLayout):
        return "#txl.dot_operand<opIdx = %d, parent = %s, kWidth = %d>" % (
            int(_unwrap(layout.operand_index)), layout_attr(layout.parent, what), int(_unwrap(layout.k_width)))
    if isinstance(layout, NVMMADistributedLayout):
        version = _unwrap(layout.version)
        major = int(version[0] if isinstance(version, (list, tuple)) else version)
        if major not in (2, 3):
            raise SemanticError("%s: NVMMADistributedLayout version %s: txl has the mma.sync (2) and wgmma (3) "
                                "accumulator layouts" % (what, version))
        return layout.to_ir()
    if isinstance(layout, BlockedLayout):
        for name in ("ctas_per_cga", "cta_split_num"):
            v = getattr(layout, name)
            if v is not None and any(int(_unwrap(x)) != 1 for x in v):
                raise SemanticError("%s: BlockedLayout with %s=%s (several CTAs of a cluster): txl's register "
                                    "layouts span one CTA" % (what, name, list(v)), "leave %s out" % name)
        return layout.to_ir()
    if isinstance(layout, AutoLayout) or layout is None:
        return None
    if is_shared(layout):
        raise SemanticError("%s: %s is a shared-memory layout, and a register tile needs a distributed one"
                            % (what, type(layout).__name__),
                            "use gl.BlockedLayout / gl.SliceLayout / gl.NVMMADistributedLayout / gl.DotOperandLayout "
                            "/ gl.DistributedLinearLayout")
    raise SemanticError("%s: %r is not a Gluon register layout" % (what, layout),
                        "use gl.BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order) or another "
                        "distributed layout")


def is_distributed(layout):
    return isinstance(_unwrap(layout), (BlockedLayout, SliceLayout, DistributedLinearLayout, NVMMADistributedLayout,
                                        DotOperandLayout, AutoLayout))


def is_shared(layout):
    return isinstance(_unwrap(layout), (NVMMASharedLayout, SwizzledSharedLayout, PaddedSharedLayout,
                                        SharedLinearLayout))


@dataclass
class PaddedSharedLayout(_Layout):
    """Gluon's padded shared layout: importable; a kernel that allocates with it gets a located error (txl plans
    padding itself, for its scratch buffers only)."""
    interval_padding_pairs: list
    offset_bases: list = None
    cga_layout: list = None
    shape: list = None


@dataclass
class SharedLinearLayout(_Layout):
    """Gluon's linear shared layout: importable; refused where a kernel allocates with it."""
    offset_bases: list
    block_bases: list = None
    alignment: int = 16


@dataclass
class CoalescedLayout(_Layout):
    """Gluon's "let the compiler pick a coalesced layout" marker: in txl that is what a tile without a layout gets
    (txl-assign-layouts' default: 16 bytes per thread along the contiguous dimension)."""
