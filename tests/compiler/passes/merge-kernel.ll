; Merge kernel (thesis Fig. 3.6): stores to outputs load the other device's
; partial output at the same offset; computation, dead __local traffic and
; barriers are removed. A kernel whose store addresses depend on an output gets
; no merge kernel.
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-merge-kernel %s -o - | FileCheck %s
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-merge-kernel %s -o - | FileCheck %s --check-prefix=CHASE
;
; Input: tutti-cc --prepare of
;   __kernel void bs(__global const float *price, __global float *call,
;                    __global float *put, float r) {
;     int i = get_global_id(0); float p = price[i]; float c = sqrt(p) * r + exp(p);
;     call[i] = c; put[i] = c - p; }
;   __kernel void red(__global const float *in, __global float *out, __local float *s) {
;     ... tree reduction in s with barriers ...; if (l == 0) out[get_group_id(0)] = s[0]; }
;   __kernel void chase(__global int *a) { int i = get_global_id(0); a[a[i] & 1023] = i; }
;
; CHECK-LABEL: define {{.*}} @bs__tutti_merge(
; CHECK-SAME: i64 %__tutti_work_dim, float addrspace(1)* %__tutti_partial_call, float addrspace(1)* %__tutti_partial_put)
; CHECK-NOT: _Z4sqrtf
; CHECK-NOT: _Z3expf
; CHECK-NOT: %price
; CHECK: %tutti.partial = getelementptr i8, i8 addrspace(1)* %{{[0-9]+}}
; CHECK: [[V1:%tutti.merged[0-9]*]] = load float
; CHECK-NEXT: store float [[V1]], float addrspace(1)* %arrayidx
; CHECK: [[V2:%tutti.merged[0-9]*]] = load float
; CHECK-NEXT: store float [[V2]], float addrspace(1)* %arrayidx
; CHECK-NEXT: ret void
;
; CHECK-LABEL: define {{.*}} @red__tutti_merge(
; CHECK-SAME: float addrspace(1)* %__tutti_partial_out)
; CHECK-NOT: barrier
; CHECK-NOT: addrspace(3)* %
; CHECK: [[G:%[0-9]+]] = call spir_func i64 @_Z12get_group_idj(i32 0)
; CHECK-NEXT: [[GV:%[0-9]+]] = add i64 [[G]], %__tutti_wg_offset0
; CHECK: getelementptr float, float addrspace(1)* %__tutti_partial_out, i64 [[GV]]
; CHECK-NOT: barrier
; CHECK: ret void
;
; CHASE-NOT: chase__tutti_merge
; CHASE: define {{.*}} @chase__tutti_pr(
; CHASE-NOT: chase__tutti_merge

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define dso_local spir_kernel void @bs(float addrspace(1)* nocapture noundef readonly align 4 %price, float addrspace(1)* nocapture noundef writeonly align 4 %call, float addrspace(1)* nocapture noundef writeonly align 4 %put, float noundef %r) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call1 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #7
  %0 = shl i64 %call1, 32
  %idxprom = ashr exact i64 %0, 32
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %price, i64 %idxprom
  %1 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !9
  %call2 = tail call spir_func float @_Z4sqrtf(float noundef %1) #8
  %call3 = tail call spir_func float @_Z3expf(float noundef %1) #8
  %2 = tail call float @llvm.fmuladd.f32(float %call2, float %r, float %call3)
  %arrayidx5 = getelementptr inbounds float, float addrspace(1)* %call, i64 %idxprom
  store float %2, float addrspace(1)* %arrayidx5, align 4, !tbaa !9
  %sub = fsub float %2, %1
  %arrayidx7 = getelementptr inbounds float, float addrspace(1)* %put, i64 %idxprom
  store float %sub, float addrspace(1)* %arrayidx7, align 4, !tbaa !9
  ret void
}

declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func float @_Z4sqrtf(float noundef) local_unnamed_addr #2

declare dso_local spir_func float @_Z3expf(float noundef) local_unnamed_addr #2

declare float @llvm.fmuladd.f32(float, float, float) #3

define dso_local spir_kernel void @red(float addrspace(1)* nocapture noundef readonly align 4 %in, float addrspace(1)* nocapture noundef writeonly align 4 %out, float addrspace(3)* nocapture noundef align 4 %s) local_unnamed_addr #4 !kernel_arg_addr_space !13 !kernel_arg_access_qual !14 !kernel_arg_type !15 !kernel_arg_base_type !15 !kernel_arg_type_qual !16 !kernel_arg_name !17 {
entry:
  %call17 = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 0) #7
  %call3 = tail call spir_func i64 @_Z14get_local_sizej(i32 noundef 0) #7, !range !18
  %call1 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #7
  %call = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #7, !range !19
  %conv = trunc i64 %call to i32
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %in, i64 %call1
  %0 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !9
  %arrayidx2 = getelementptr inbounds float, float addrspace(3)* %s, i64 %call
  store float %0, float addrspace(3)* %arrayidx2, align 4, !tbaa !9
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #9
  %div32 = lshr i64 %call3, 1
  %conv4 = trunc i64 %div32 to i32
  %cmp.not33 = icmp eq i32 %conv4, 0
  br i1 %cmp.not33, label %for.cond.cleanup, label %for.body

for.cond.cleanup:                                 ; preds = %if.end, %entry
  %cmp13 = icmp eq i32 %conv, 0
  br i1 %cmp13, label %if.then15, label %if.end19

for.body:                                         ; preds = %entry, %if.end
  %k.034 = phi i32 [ %3, %if.end ], [ %conv4, %entry ]
  %cmp6 = icmp ugt i32 %k.034, %conv
  br i1 %cmp6, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  %add = add nuw nsw i32 %k.034, %conv
  %idxprom8 = zext i32 %add to i64
  %arrayidx9 = getelementptr inbounds float, float addrspace(3)* %s, i64 %idxprom8
  %1 = load float, float addrspace(3)* %arrayidx9, align 4, !tbaa !9
  %2 = load float, float addrspace(3)* %arrayidx2, align 4, !tbaa !9
  %add12 = fadd float %1, %2
  store float %add12, float addrspace(3)* %arrayidx2, align 4, !tbaa !9
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #9
  %3 = lshr i32 %k.034, 1
  %cmp.not = icmp ult i32 %k.034, 2
  br i1 %cmp.not, label %for.cond.cleanup, label %for.body

if.then15:                                        ; preds = %for.cond.cleanup
  %4 = load float, float addrspace(3)* %s, align 4, !tbaa !9
  %arrayidx18 = getelementptr inbounds float, float addrspace(1)* %out, i64 %call17
  store float %4, float addrspace(1)* %arrayidx18, align 4, !tbaa !9
  br label %if.end19

if.end19:                                         ; preds = %if.then15, %for.cond.cleanup
  ret void
}

declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #5

declare dso_local spir_func i64 @_Z14get_local_sizej(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z12get_group_idj(i32 noundef) local_unnamed_addr #1

define dso_local spir_kernel void @chase(i32 addrspace(1)* nocapture noundef align 4 %a) local_unnamed_addr #6 !kernel_arg_addr_space !20 !kernel_arg_access_qual !21 !kernel_arg_type !22 !kernel_arg_base_type !22 !kernel_arg_type_qual !23 !kernel_arg_name !24 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #7
  %conv = trunc i64 %call to i32
  %idxprom = sext i32 %conv to i64
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %a, i64 %idxprom
  %0 = load i32, i32 addrspace(1)* %arrayidx, align 4, !tbaa !25
  %and = and i32 %0, 1023
  %idxprom1 = zext i32 %and to i64
  %arrayidx2 = getelementptr inbounds i32, i32 addrspace(1)* %a, i64 %idxprom1
  store i32 %conv, i32 addrspace(1)* %arrayidx2, align 4, !tbaa !25
  ret void
}

attributes #0 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #4 = { convergent norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #5 = { convergent mustprogress nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #6 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #7 = { nounwind readnone willreturn }
attributes #8 = { convergent nounwind readnone willreturn }
attributes #9 = { convergent }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 1, i32 0}
!5 = !{!"none", !"none", !"none", !"none"}
!6 = !{!"float*", !"float*", !"float*", !"float"}
!7 = !{!"const", !"", !"", !""}
!8 = !{!"price", !"call", !"put", !"r"}
!9 = !{!10, !10, i64 0}
!10 = !{!"float", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{i32 1, i32 1, i32 3}
!14 = !{!"none", !"none", !"none"}
!15 = !{!"float*", !"float*", !"float*"}
!16 = !{!"const", !"", !""}
!17 = !{!"in", !"out", !"s"}
!18 = !{i64 1, i64 1048577}
!19 = !{i64 0, i64 1048576}
!20 = !{i32 1}
!21 = !{!"none"}
!22 = !{!"int*"}
!23 = !{!""}
!24 = !{!"a"}
!25 = !{!26, !26, i64 0}
!26 = !{!"int", !11, i64 0}
