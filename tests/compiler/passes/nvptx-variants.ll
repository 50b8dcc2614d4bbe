; NVPTX (opaque pointers): variants are registered as kernels in
; nvvm.annotations, and the merge kernel's address mapping works on `ptr`.
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-merge-kernel %s -o - | FileCheck %s
;
; Input: tutti-cc --prepare --target=nvptx64 of
;   __kernel void axpy(__global const float *x, __global float *y, float a) {
;     int i = get_global_id(0); y[i] = a * x[i] + y[i]; }
;
; CHECK-LABEL: define {{.*}} @axpy__tutti_merge(
; CHECK-SAME: ptr addrspace(1) %__tutti_partial_y)
; CHECK-NOT: fmuladd
; CHECK: %tutti.merged = load float
; CHECK-NEXT: store float %tutti.merged, ptr addrspace(1)
; CHECK: !nvvm.annotations = !{[[A0:![0-9]+]], [[A1:![0-9]+]], [[A2:![0-9]+]]}
; CHECK-DAG: [[A0]] = !{ptr @axpy, !"kernel", i32 1}
; CHECK-DAG: [[A1]] = !{ptr @axpy__tutti_pr, !"kernel", i32 1}
; CHECK-DAG: [[A2]] = !{ptr @axpy__tutti_merge, !"kernel", i32 1}

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

define dso_local spir_kernel void @axpy(ptr addrspace(1) nocapture noundef readonly align 4 %x, ptr addrspace(1) nocapture noundef align 4 %y, float noundef %a) local_unnamed_addr #0 !kernel_arg_addr_space !5 !kernel_arg_access_qual !6 !kernel_arg_type !7 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 !kernel_arg_name !9 {
entry:
  %call = tail call i64 @_Z13get_global_idj(i32 noundef 0) #3
  %sext = shl i64 %call, 32
  %idxprom = ashr exact i64 %sext, 32
  %arrayidx = getelementptr inbounds float, ptr addrspace(1) %x, i64 %idxprom
  %0 = load float, ptr addrspace(1) %arrayidx, align 4, !tbaa !10
  %arrayidx2 = getelementptr inbounds float, ptr addrspace(1) %y, i64 %idxprom
  %1 = load float, ptr addrspace(1) %arrayidx2, align 4, !tbaa !10
  %2 = tail call float @llvm.fmuladd.f32(float %a, float %0, float %1)
  store float %2, ptr addrspace(1) %arrayidx2, align 4, !tbaa !10
  ret void
}

declare dso_local i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

declare float @llvm.fmuladd.f32(float, float, float) #2

attributes #0 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+ptx75,+sm_20" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+ptx75,+sm_20" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #3 = { nounwind readnone willreturn }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2}
!opencl.ocl.version = !{!3}
!llvm.ident = !{!4}

!0 = !{ptr @axpy, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 7, !"frame-pointer", i32 2}
!3 = !{i32 1, i32 2}
!4 = !{!"Debian clang version 15.0.6"}
!5 = !{i32 1, i32 1, i32 0}
!6 = !{!"none", !"none", !"none"}
!7 = !{!"float*", !"float*", !"float"}
!8 = !{!"const", !"", !""}
!9 = !{!"x", !"y", !"a"}
!10 = !{!11, !11, i64 0}
!11 = !{!"float", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C/C++ TBAA"}
