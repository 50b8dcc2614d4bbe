; spir64: a return shared by a uniform early return before a barrier and by exits after it
; (a per-work-item test, a loop's zero-trip test and its exit) is split: the exits after
; the barrier go to one return behind an explicit barrier, which the barrier dominates,
; and the early return keeps its own. PoCL had replicated the shared return per edge and
; let work-item 0 pick its group's exit (issue 20: mr_StringMatch lost its output under
; TUTTI_MODE=skmd). Kernels whose exits all follow the same barrier, and kernels without
; barriers, stay as they are.
; RUN: tutti-cc --passes=tutti-barrier-exits %s -o - | FileCheck %s
;
; CHECK-LABEL: define spir_kernel void @early_return
; CHECK: entry:
; CHECK-NEXT: %on = load i32
; CHECK-NEXT: %skip = icmp eq i32 %on, 0
; CHECK-NEXT: br i1 %skip, label %ret, label %work
; CHECK: work:
; CHECK: call spir_func void @_Z7barrierj(i32 1)
; CHECK: br i1 %far, label %tutti.exit.after.work, label %loop.pre
; CHECK: loop.pre:
; CHECK: br i1 %none, label %tutti.exit.after.work, label %loop
; CHECK: loop:
; CHECK: br i1 %again, label %loop, label %tutti.exit.after.work
; CHECK: tutti.exit.after.work:
; CHECK-NEXT: call spir_func void @_Z7barrierj(i32 1) #[[CONV:[0-9]+]]
; CHECK-NEXT: ret void
; CHECK: ret:
; CHECK-NEXT: ret void
;
; CHECK-LABEL: define spir_kernel void @no_early_return
; CHECK-NOT: tutti.exit
; CHECK: ret void
; CHECK-LABEL: define spir_kernel void @no_barrier
; CHECK-NOT: tutti.exit
; CHECK: ret void
; CHECK: attributes #[[CONV]] = { convergent nounwind }

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

@count = internal addrspace(3) global i32 undef, align 4

define spir_kernel void @early_return(i32 addrspace(1)* %groupOn, i32 addrspace(1)* %keep, i32 addrspace(1)* %out) {
entry:
  %on = load i32, i32 addrspace(1)* %groupOn, align 4
  %skip = icmp eq i32 %on, 0
  br i1 %skip, label %ret, label %work

work:
  store i32 0, i32 addrspace(3)* @count, align 4
  call spir_func void @_Z7barrierj(i32 1)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %far = icmp ugt i64 %gid, 100000
  br i1 %far, label %ret, label %loop.pre

loop.pre:
  %p = getelementptr inbounds i32, i32 addrspace(1)* %keep, i64 %gid
  %n = load i32, i32 addrspace(1)* %p, align 4
  %none = icmp eq i32 %n, 0
  br i1 %none, label %ret, label %loop

loop:
  %j = phi i32 [ 0, %loop.pre ], [ %j1, %loop ]
  %slot = call spir_func i32 @_Z10atomic_incPU3AS3Vj(i32 addrspace(3)* @count)
  %q = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %gid
  store i32 %slot, i32 addrspace(1)* %q, align 4
  %j1 = add i32 %j, 1
  %again = icmp ult i32 %j1, %n
  br i1 %again, label %loop, label %ret

ret:
  ret void
}

define spir_kernel void @no_early_return(i32 addrspace(1)* %keep, i32 addrspace(1)* %out) {
entry:
  call spir_func void @_Z7barrierj(i32 1)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr inbounds i32, i32 addrspace(1)* %keep, i64 %gid
  %n = load i32, i32 addrspace(1)* %p, align 4
  %none = icmp eq i32 %n, 0
  br i1 %none, label %ret, label %store

store:
  %q = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %gid
  store i32 %n, i32 addrspace(1)* %q, align 4
  br label %ret

ret:
  ret void
}

define spir_kernel void @no_barrier(i32 addrspace(1)* %keep, i32 addrspace(1)* %out) {
entry:
  %n = load i32, i32 addrspace(1)* %keep, align 4
  %none = icmp eq i32 %n, 0
  br i1 %none, label %ret, label %store

store:
  store i32 %n, i32 addrspace(1)* %out, align 4
  br label %ret

ret:
  ret void
}

declare spir_func void @_Z7barrierj(i32)
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i32 @_Z10atomic_incPU3AS3Vj(i32 addrspace(3)*)
