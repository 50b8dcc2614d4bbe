; spir64: mem_fence, read_mem_fence and write_mem_fence, which PoCL's kernel library does not
; define (its SPIR link failed: issue 20), become LLVM fences; other declarations stay.
; RUN: tutti-cc --passes=tutti-define-mem-fences %s -o - | FileCheck %s
;
; CHECK-LABEL: define internal spir_func void @_Z9mem_fencej(i32 %0)
; CHECK-NEXT: entry:
; CHECK-NEXT: fence acq_rel
; CHECK-LABEL: define internal spir_func void @_Z14read_mem_fencej(i32 %0)
; CHECK: fence acquire
; CHECK-LABEL: define internal spir_func void @_Z15write_mem_fencej(i32 %0)
; CHECK: fence release
; CHECK: declare spir_func void @_Z7barrierj(i32)

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define spir_kernel void @k(i32 addrspace(1)* %out) {
entry:
  store i32 1, i32 addrspace(1)* %out, align 4
  call spir_func void @_Z9mem_fencej(i32 2)
  call spir_func void @_Z14read_mem_fencej(i32 2)
  call spir_func void @_Z15write_mem_fencej(i32 1)
  call spir_func void @_Z7barrierj(i32 1)
  ret void
}

declare spir_func void @_Z9mem_fencej(i32)
declare spir_func void @_Z14read_mem_fencej(i32)
declare spir_func void @_Z15write_mem_fencej(i32)
declare spir_func void @_Z7barrierj(i32)
