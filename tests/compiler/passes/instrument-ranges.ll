; Instrumented range check variant (tests): every global access records its
; byte offset range with atomic min/max into trace[4*arg + (read ? 0 : 2)].
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-instrument-ranges %s -o - | FileCheck %s
;
; Input: tutti-cc --prepare of
;   __kernel void axpy(__global const float *x, __global float *y, float a) {
;     int i = get_global_id(0); y[i] = a * x[i] + y[i]; }
;
; CHECK-LABEL: define {{.*}} @axpy__tutti_trace(
; CHECK-SAME: i64 %__tutti_work_dim, i64 addrspace(1)* %__tutti_trace)
; read of x: slots 0/1
; CHECK: [[XB:%[0-9]+]] = ptrtoint float addrspace(1)* %x to i64
; CHECK-NEXT: [[XP:%[0-9]+]] = ptrtoint float addrspace(1)* %arrayidx to i64
; CHECK-NEXT: [[XO:%[0-9]+]] = sub i64 [[XP]], [[XB]]
; CHECK-NEXT: [[XE:%[0-9]+]] = add i64 [[XO]], 3
; CHECK-NEXT: [[S0:%[0-9]+]] = getelementptr i64, i64 addrspace(1)* %__tutti_trace, i64 0
; CHECK-NEXT: [[S1:%[0-9]+]] = getelementptr i64, i64 addrspace(1)* %__tutti_trace, i64 1
; CHECK-NEXT: atomicrmw min i64 addrspace(1)* [[S0]], i64 [[XO]] monotonic
; CHECK-NEXT: atomicrmw max i64 addrspace(1)* [[S1]], i64 [[XE]] monotonic
; read of y: slots 4/5, write of y: slots 6/7
; CHECK: getelementptr i64, i64 addrspace(1)* %__tutti_trace, i64 4
; CHECK: getelementptr i64, i64 addrspace(1)* %__tutti_trace, i64 7
; CHECK: atomicrmw max
; CHECK-NEXT: store float
; CHECK-NEXT: ret void

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define dso_local spir_kernel void @axpy(float addrspace(1)* nocapture noundef readonly align 4 %x, float addrspace(1)* nocapture noundef align 4 %y, float noundef %a) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #3
  %0 = shl i64 %call, 32
  %idxprom = ashr exact i64 %0, 32
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %x, i64 %idxprom
  %1 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !9
  %arrayidx2 = getelementptr inbounds float, float addrspace(1)* %y, i64 %idxprom
  %2 = load float, float addrspace(1)* %arrayidx2, align 4, !tbaa !9
  %3 = tail call float @llvm.fmuladd.f32(float %a, float %1, float %2)
  store float %3, float addrspace(1)* %arrayidx2, align 4, !tbaa !9
  ret void
}

declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

declare float @llvm.fmuladd.f32(float, float, float) #2

attributes #0 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #3 = { nounwind readnone willreturn }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 0}
!5 = !{!"none", !"none", !"none"}
!6 = !{!"float*", !"float*", !"float"}
!7 = !{!"const", !"", !""}
!8 = !{!"x", !"y", !"a"}
!9 = !{!10, !10, i64 0}
!10 = !{!"float", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
