"""txl.compiler: the frontend (Python AST -> txl IR text, ``code_generator.ast_to_ir``) and the driver that runs
the C++ compiler on it. Importing this package is cheap (no torch, no CUDA, no MLIR bindings)."""
