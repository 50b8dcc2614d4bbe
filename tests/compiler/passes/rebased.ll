; VAST's fast path kernel: K__tutti_rb = K__tutti_pr + one ulong per buffer argument, each
; buffer argument moved back by it once at entry; no access is rewritten, and GEPs on a
; moved argument lose inbounds (the moved pointer lies before its frame buffer).
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-rebased %s -o - | FileCheck %s
;
; Input: the module of paged-access.ll (gather through a helper, a select of a buffer and
; null with a __constant buffer, a vstore4 on element alignment, atomics).
;
; CHECK-LABEL: define dso_local spir_kernel void @gather(
; CHECK-NOT: vast
; CHECK: ret void
;
; CHECK-LABEL: define dso_local spir_kernel void @gather__tutti_rb({{.*}}%idx, {{.*}}i64 %__tutti_work_dim, i64 %__tutti_rebase0, i64 %__tutti_rebase1, i64 %__tutti_rebase2)
; CHECK-SAME: !kernel_arg_type [[TYPES:![0-9]+]]
; CHECK-NOT: __tutti_lpt
; CHECK: [[N0:%[0-9]+]] = sub i64 0, %__tutti_rebase0
; CHECK-NEXT: %vast.rebased = getelementptr i8, i8 addrspace(1)* {{%[0-9]+}}, i64 [[N0]]
; CHECK: [[N2:%[0-9]+]] = sub i64 0, %__tutti_rebase2
; CHECK-NEXT: %vast.rebased2 = getelementptr i8, i8 addrspace(1)* {{%[0-9]+}}, i64 [[N2]]
; CHECK-NEXT: [[IDX:%[0-9]+]] = bitcast i8 addrspace(1)* %vast.rebased2 to i32 addrspace(1)*
; The accesses are the original ones, on the moved pointers.
; CHECK-NOT: getelementptr inbounds
; CHECK: %arrayidx = getelementptr i32, i32 addrspace(1)* [[IDX]], i64 %idxprom
; CHECK-NEXT: load i32, i32 addrspace(1)* %arrayidx
; CHECK-NOT: getelementptr inbounds
; CHECK: ret void
;
; The select of `a` and null takes the moved `a`; the __constant buffer is moved too.
; CHECK-LABEL: define dso_local spir_kernel void @sel__tutti_rb(
; CHECK: getelementptr i8, i8 addrspace(2)*
; CHECK: select i1 %cmp, float addrspace(1)* {{%[0-9]+}}, float addrspace(1)* null
; CHECK-NOT: getelementptr inbounds
; CHECK: ret void
;
; Atomics keep their builtin, on the moved pointer.
; CHECK-LABEL: define dso_local spir_kernel void @hist__tutti_rb(
; CHECK: call spir_func i32 @_Z10atomic_incPU3AS1Vj(
;
; Metadata: the extra parameters are ulongs.
; CHECK: [[TYPES]] = !{!"float*", !"float*", !"int*", !"ulong", {{.*}}!"ulong", !"ulong", !"ulong"}
;
; ModuleID = '/work/wt-vast/tutti-program.cl'
source_filename = "/work/wt-vast/tutti-program.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; Function Attrs: argmemonly mustprogress nofree norecurse nosync nounwind willreturn
define dso_local spir_kernel void @gather(float addrspace(1)* nocapture noundef writeonly align 4 %out, float addrspace(1)* nocapture noundef readonly align 4 %in, i32 addrspace(1)* nocapture noundef readonly align 4 %idx) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #6
  %0 = shl i64 %call, 32
  %idxprom = ashr exact i64 %0, 32
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %idx, i64 %idxprom
  %1 = load i32, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  %idxprom.i = sext i32 %1 to i64
  %arrayidx.i = getelementptr inbounds float, float addrspace(1)* %in, i64 %idxprom.i
  %2 = load float, float addrspace(1)* %arrayidx.i, align 4, !tbaa !13
  %mul.i = fmul float %2, 2.000000e+00
  %arrayidx3 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom
  store float %mul.i, float addrspace(1)* %arrayidx3, align 4, !tbaa !13
  ret void
}

; Function Attrs: mustprogress nofree nosync nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn
define dso_local spir_kernel void @sel(float addrspace(1)* nocapture noundef align 4 %a, float addrspace(2)* nocapture noundef readonly align 4 %b, i32 noundef %c) local_unnamed_addr #2 !kernel_arg_addr_space !15 !kernel_arg_access_qual !5 !kernel_arg_type !16 !kernel_arg_base_type !16 !kernel_arg_type_qual !17 !kernel_arg_name !18 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #6
  %conv = trunc i64 %call to i32
  %cmp = icmp slt i32 %conv, %c
  %cond = select i1 %cmp, float addrspace(1)* %a, float addrspace(1)* null
  %idxprom = sext i32 %conv to i64
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %cond, i64 %idxprom
  %0 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !13
  %arrayidx3 = getelementptr inbounds float, float addrspace(2)* %b, i64 %idxprom
  %1 = load float, float addrspace(2)* %arrayidx3, align 4, !tbaa !13
  %add = fadd float %0, %1
  %arrayidx5 = getelementptr inbounds float, float addrspace(1)* %a, i64 %idxprom
  store float %add, float addrspace(1)* %arrayidx5, align 4, !tbaa !13
  ret void
}

; Function Attrs: argmemonly mustprogress nofree norecurse nosync nounwind willreturn
define dso_local spir_kernel void @vl(float addrspace(1)* nocapture noundef writeonly align 4 %out, <4 x float> addrspace(1)* nocapture noundef readonly align 16 %in) local_unnamed_addr #3 !kernel_arg_addr_space !19 !kernel_arg_access_qual !20 !kernel_arg_type !21 !kernel_arg_base_type !22 !kernel_arg_type_qual !23 !kernel_arg_name !24 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #6
  %conv = trunc i64 %call to i32
  %idxprom = sext i32 %conv to i64
  %arrayidx = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %in, i64 %idxprom
  %0 = load <4 x float>, <4 x float> addrspace(1)* %arrayidx, align 16, !tbaa !25
  %mul = mul nsw i32 %conv, 3
  %idx.ext = sext i32 %mul to i64
  %add.ptr = getelementptr inbounds float, float addrspace(1)* %out, i64 %idx.ext
  %1 = bitcast float addrspace(1)* %add.ptr to <4 x float> addrspace(1)*
  store <4 x float> %0, <4 x float> addrspace(1)* %1, align 4
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind willreturn
define dso_local spir_kernel void @hist(i32 addrspace(1)* nocapture noundef readonly align 4 %d, i32 addrspace(1)* noundef align 4 %h) local_unnamed_addr #4 !kernel_arg_addr_space !19 !kernel_arg_access_qual !20 !kernel_arg_type !26 !kernel_arg_base_type !26 !kernel_arg_type_qual !27 !kernel_arg_name !28 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #6
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %d, i64 %call
  %0 = load i32, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  %and = and i32 %0, 63
  %idxprom = zext i32 %and to i64
  %arrayidx1 = getelementptr inbounds i32, i32 addrspace(1)* %h, i64 %idxprom
  %call2 = tail call spir_func i32 @_Z10atomic_incPU3AS1Vj(i32 addrspace(1)* noundef %arrayidx1) #7
  ret void
}

; Function Attrs: convergent mustprogress nounwind willreturn
declare dso_local spir_func i32 @_Z10atomic_incPU3AS1Vj(i32 addrspace(1)* noundef) local_unnamed_addr #5

attributes #0 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #3 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="128" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #4 = { convergent mustprogress norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #5 = { convergent mustprogress nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #6 = { nounwind readnone willreturn }
attributes #7 = { convergent }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 1}
!5 = !{!"none", !"none", !"none"}
!6 = !{!"float*", !"float*", !"int*"}
!7 = !{!"", !"const", !"const"}
!8 = !{!"out", !"in", !"idx"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"float", !11, i64 0}
!15 = !{i32 1, i32 2, i32 0}
!16 = !{!"float*", !"float*", !"int"}
!17 = !{!"", !"const", !""}
!18 = !{!"a", !"b", !"c"}
!19 = !{i32 1, i32 1}
!20 = !{!"none", !"none"}
!21 = !{!"float*", !"float4*"}
!22 = !{!"float*", !"float __attribute__((ext_vector_type(4)))*"}
!23 = !{!"", !"const"}
!24 = !{!"out", !"in"}
!25 = !{!11, !11, i64 0}
!26 = !{!"uint*", !"uint*"}
!27 = !{!"const", !""}
!28 = !{!"d", !"h"}
