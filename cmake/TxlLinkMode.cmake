# How txl's tools link MLIR/LLVM.
#   static     (default) libMLIR*.a + Debian's shared libLLVM.so (Debian builds LLVM with
#              LLVM_LINK_LLVM_DYLIB=ON, so every MLIR static target depends on it).
#   fullstatic every libLLVM*.a too: a self-contained binary (about 100 MB) for GPU hosts
#              that have no LLVM. Recipe measured in docs/mlir22-nvptx-facts.md §3b.
set(TXL_LINK "static" CACHE STRING "static|fullstatic")
set_property(CACHE TXL_LINK PROPERTY STRINGS static fullstatic)

if(TXL_LINK STREQUAL "fullstatic")
  set(_libs ${LLVM_AVAILABLE_LIBS})
  list(FILTER _libs INCLUDE REGEX "^LLVM[A-Z]")
  # Components whose third-party dependencies have no dev package here.
  list(REMOVE_ITEM _libs LLVMDebuginfod LLVMLineEditor)
  list(FILTER _libs EXCLUDE REGEX "^Polly|Exegesis")
  set(_keep)
  foreach(l IN LISTS _libs)
    if(TARGET ${l})
      list(APPEND _keep ${l})
    endif()
  endforeach()
  # Debian's export names libPolly.a, which is not shipped.
  set_target_properties(LLVMExtensions PROPERTIES INTERFACE_LINK_LIBRARIES "LLVMSupport")
  if(NOT TARGET zstd::libzstd_shared)
    add_library(zstd::libzstd_shared SHARED IMPORTED)
    set_target_properties(zstd::libzstd_shared PROPERTIES
      IMPORTED_LOCATION /usr/lib/x86_64-linux-gnu/libzstd.so.1)
  endif()
  add_library(TxlLLVMStatic INTERFACE)
  target_link_libraries(TxlLLVMStatic INTERFACE ${_keep})
  # Rewrite the "LLVM" (shared) edge of every MLIR target to the static archives.
  foreach(t IN LISTS MLIR_EXPORTED_TARGETS)
    if(TARGET ${t})
      get_target_property(_deps ${t} INTERFACE_LINK_LIBRARIES)
      if(_deps)
        list(TRANSFORM _deps REPLACE "^LLVM$" "TxlLLVMStatic")
        set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${_deps}")
      endif()
    endif()
  endforeach()
  add_link_options("LINKER:--as-needed")
elseif(NOT TXL_LINK STREQUAL "static")
  message(FATAL_ERROR "TXL_LINK must be 'static' or 'fullstatic', not '${TXL_LINK}'")
endif()
