# -*- Python -*-
# lit configuration for txl. Tests run txl-opt (and later txlc) and check the
# output with FileCheck from /usr/lib/llvm-22/bin.
#
# TXL_VERIFY_ROUNDTRIP=1 makes every txl-opt invocation also check that the
# printed IR parses back to the same IR (--verify-roundtrip).
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TXL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.txl_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%txl_src", config.txl_src_root))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

txl_opt_args = []
if os.environ.get("TXL_VERIFY_ROUNDTRIP", "0") not in ("", "0"):
    txl_opt_args.append("--verify-roundtrip")
    lit_config.note("txl-opt runs with --verify-roundtrip")

tool_dirs = [config.txl_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("txl-opt", extra_args=txl_opt_args, unresolved="fatal")]
tools.append(ToolSubst("txlc", unresolved="ignore"))  # built by check-txl; ignore keeps a txl-opt-only build testable
# LLVM's `not` (exit status inverted; a crash still fails without --crash), from llvm_tools_dir.
tools.append(ToolSubst("not", unresolved="fatal"))
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The C++ unit tests (test/Unit/*.cpp, GoogleTest) when they were built.
if os.path.exists(os.path.join(config.txl_tools_dir, "txl-unittests")):
    config.available_features.add("txl-unittests")
    llvm_config.add_tool_substitutions([ToolSubst("txl-unittests", unresolved="ignore")], tool_dirs)

# ptxas is optional: PTX tests use `REQUIRES: ptxas`.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# CUDA's libdevice is optional too: libdevice tests use `REQUIRES: libdevice` and `--libdevice=%libdevice`.
libdevice = os.environ.get("TXL_LIBDEVICE") or next(
    (p for p in ("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                 "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc") if os.path.exists(p)), None)
if libdevice:
    config.available_features.add("libdevice")
    config.substitutions.append(("%libdevice", libdevice))
