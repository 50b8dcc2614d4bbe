; Inspector kernel (VAST §4.4.1-4.4.2): K__tutti_insp keeps the addresses and
; the control flow, marks one byte per page in the page-accessed sets, and
; drops everything else: no global store or atomic is left.
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-inspector %s -o - | FileCheck %s
;
; Input: tutti-cc --prepare of
;   __kernel void gather(__global float *out, __global const float *in, __global const int *idx) {
;     int i = get_global_id(0); out[i] = sqrt(in[idx[i]]) * 2.0f; }
;   __kernel void hist(__global const uint *d, __global uint *h) {
;     atomic_inc(&h[d[get_global_id(0)] & 63]); }
;   __kernel void vl(__global float *out, __global const float *in) {
;     int i = get_global_id(0); vstore4(vload4(0, in + i) * 3.0f, i, out); }
;   __kernel void chase(__global uint *idx, __global float *out) {
;     size_t i = get_global_id(0); out[idx[i]] = (float)i; idx[i] = 0; }
;   __kernel void halve(__global const float *in, __global float *out, __global const float *lut) {
;     int i = get_global_id(0); float v = in[i]; while (v > 1.0f) v *= 0.5f;
;     if (v < 0.0f) v = lut[i & 15]; out[i] = v; }
;   __kernel void halve2(__global const float *in, __global float *out) {
;     int i = get_global_id(0); float v = in[i]; while (v > 1.0f) v *= 0.5f; out[i] = v; }
;   __kernel void chase2(__global uint *idx, __global float *out, uint n) {
;     size_t i = get_global_id(0); idx[i + n] = (uint)i; out[idx[i]] = (float)i; }
;
; Parameters: K's, the 16 ABI ulongs, page_shift, wg_per_pas, pas_first_set,
; then (PAS, pages) per buffer argument.
; CHECK-LABEL: define dso_local spir_kernel void @gather__tutti_insp({{.*}}i64 %__tutti_work_dim, i32 %__tutti_page_shift, i64 %__tutti_wg_per_pas, i64 %__tutti_pas_first_set, i8 addrspace(1)* %__tutti_pas0, i64 %__tutti_pas_pages0, i8 addrspace(1)* %__tutti_pas1, i64 %__tutti_pas_pages1, i8 addrspace(1)* %__tutti_pas2, i64 %__tutti_pas_pages2)
; set = flattened group id of the full launch / wg_per_pas - first set
; CHECK: %vast.group = add i64
; CHECK-NEXT: [[Q:%[0-9]+]] = udiv i64 %vast.group, %__tutti_wg_per_pas
; CHECK-NEXT: %vast.set = sub i64 [[Q]], %__tutti_pas_first_set
; idx[i]: read mark (row 2*set + 0) in PAS 2, then the load itself stays (in's address needs it)
; CHECK: %vast.page = lshr i64 %vast.off, %vast.shift
; CHECK: [[R:%[0-9]+]] = add i64 %{{[0-9]+}}, 0
; CHECK-NEXT: [[M:%[0-9]+]] = mul i64 [[R]], %__tutti_pas_pages2
; CHECK-NEXT: %vast.mark = add i64 [[M]],
; CHECK-NEXT: [[G:%[0-9]+]] = getelementptr i8, i8 addrspace(1)* %__tutti_pas2, i64 %vast.mark
; CHECK-NEXT: store i8 1, i8 addrspace(1)* [[G]]
; CHECK-NEXT: load i32, i32 addrspace(1)* %arrayidx
; in[idx[i]]: read mark in PAS 1; the load of `in` and the arithmetic are gone
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1
; CHECK-NOT: load float
; out[i]: write mark (row 2*set + 1) in PAS 0, no store to out
; CHECK: add i64 %{{[0-9]+}}, 1
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas0
; CHECK-NOT: store float
; CHECK-NOT: sqrt
; CHECK: ret void
;
; The atomic goes away; its page is marked read and written.
; CHECK-LABEL: define dso_local spir_kernel void @hist__tutti_insp(
; CHECK: %vast.mark3 = add i64 %{{[0-9]+}}, [[HP:%[0-9]+]]
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1, i64 %vast.mark3
; CHECK: %vast.mark4 = add i64 %{{[0-9]+}}, [[HP]]
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1, i64 %vast.mark4
; CHECK-NOT: atomic
; CHECK: ret void
;
; vload4/vstore4 on element alignment may straddle: the last byte's page is marked too.
; CHECK-LABEL: define dso_local spir_kernel void @vl__tutti_insp(
; CHECK: [[L:%[0-9]+]] = add i64 %vast.off, 15
; CHECK-NEXT: %vast.lastpage = lshr i64 [[L]], %vast.shift
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1
; CHECK: %vast.lastpage4 = lshr
; CHECK-NOT: load <4 x float>
; CHECK-NOT: store <4 x float>
; CHECK: ret void
;
;
; Only the branches that decide whether an access happens stay: lut[] is read
; only if the data-dependent loop ends below 0, so `in` is loaded and the loop
; stays...
; out[idx[i]], then idx[i] = 0: the load sees the pre-launch contents, as in the
; kernel, so it stays (idx is a data argument) and the store goes.
; CHECK-LABEL: define dso_local spir_kernel void @chase__tutti_insp(
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas0
; CHECK: load i32, i32 addrspace(1)* %arrayidx
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas0
; CHECK-NOT: store i32
; CHECK: ret void
;
; CHECK-LABEL: define dso_local spir_kernel void @halve__tutti_insp(
; CHECK: load float, float addrspace(1)* %arrayidx
; CHECK: while.body:
; CHECK: br i1 %cmp2, label %if.then, label %if.end
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas2
; CHECK: ret void
; ...while without the lut the loop only computes the stored value: gone, and
; `in` is marked but not read.
; CHECK-LABEL: define dso_local spir_kernel void @halve2__tutti_insp(
; CHECK-NOT: load float
; CHECK-NOT: br i1
; CHECK-NOT: phi
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas0
; CHECK-NOT: load float
; CHECK: getelementptr i8, i8 addrspace(1)* %__tutti_pas1
; CHECK-NEXT: store i8 1
; CHECK-NEXT: ret void
;
; chase2 stores to idx before it loads an address from it: the inspector would
; read other values than the kernel, so there is none.
; CHECK-NOT: @chase2__tutti_insp(

; ModuleID = '/work/wt-vast/tutti-program.cl'
source_filename = "/work/wt-vast/tutti-program.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; Function Attrs: argmemonly convergent mustprogress nofree norecurse nounwind willreturn
define dso_local spir_kernel void @gather(float addrspace(1)* nocapture noundef writeonly align 4 %out, float addrspace(1)* nocapture noundef readonly align 4 %in, i32 addrspace(1)* nocapture noundef readonly align 4 %idx) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %0 = shl i64 %call, 32
  %idxprom = ashr exact i64 %0, 32
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %idx, i64 %idxprom
  %1 = load i32, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  %idxprom1 = sext i32 %1 to i64
  %arrayidx2 = getelementptr inbounds float, float addrspace(1)* %in, i64 %idxprom1
  %2 = load float, float addrspace(1)* %arrayidx2, align 4, !tbaa !13
  %call3 = tail call spir_func float @_Z4sqrtf(float noundef %2) #9
  %mul = fmul float %call3, 2.000000e+00
  %arrayidx5 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom
  store float %mul, float addrspace(1)* %arrayidx5, align 4, !tbaa !13
  ret void
}

; Function Attrs: mustprogress nofree nosync nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readnone willreturn
declare dso_local spir_func float @_Z4sqrtf(float noundef) local_unnamed_addr #2

; Function Attrs: convergent mustprogress norecurse nounwind willreturn
define dso_local spir_kernel void @hist(i32 addrspace(1)* nocapture noundef readonly align 4 %d, i32 addrspace(1)* noundef align 4 %h) local_unnamed_addr #3 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !17 !kernel_arg_base_type !17 !kernel_arg_type_qual !18 !kernel_arg_name !19 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %d, i64 %call
  %0 = load i32, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  %and = and i32 %0, 63
  %idxprom = zext i32 %and to i64
  %arrayidx1 = getelementptr inbounds i32, i32 addrspace(1)* %h, i64 %idxprom
  %call2 = tail call spir_func i32 @_Z10atomic_incPU3AS1Vj(i32 addrspace(1)* noundef %arrayidx1) #10
  ret void
}

; Function Attrs: convergent mustprogress nounwind willreturn
declare dso_local spir_func i32 @_Z10atomic_incPU3AS1Vj(i32 addrspace(1)* noundef) local_unnamed_addr #4

; Function Attrs: argmemonly mustprogress nofree norecurse nosync nounwind willreturn
define dso_local spir_kernel void @vl(float addrspace(1)* nocapture noundef writeonly align 4 %out, float addrspace(1)* nocapture noundef readonly align 4 %in) local_unnamed_addr #5 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !20 !kernel_arg_base_type !20 !kernel_arg_type_qual !21 !kernel_arg_name !22 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %0 = shl i64 %call, 32
  %idx.ext = ashr exact i64 %0, 32
  %add.ptr = getelementptr inbounds float, float addrspace(1)* %in, i64 %idx.ext
  %1 = bitcast float addrspace(1)* %add.ptr to <4 x float> addrspace(1)*
  %2 = load <4 x float>, <4 x float> addrspace(1)* %1, align 4
  %mul = fmul <4 x float> %2, <float 3.000000e+00, float 3.000000e+00, float 3.000000e+00, float 3.000000e+00>
  %3 = ashr exact i64 %0, 30
  %4 = getelementptr inbounds float, float addrspace(1)* %out, i64 %3
  %5 = bitcast float addrspace(1)* %4 to <4 x float> addrspace(1)*
  store <4 x float> %mul, <4 x float> addrspace(1)* %5, align 4
  ret void
}

; Function Attrs: argmemonly mustprogress nofree norecurse nosync nounwind willreturn
define dso_local spir_kernel void @chase(i32 addrspace(1)* nocapture noundef align 4 %idx, float addrspace(1)* nocapture noundef writeonly align 4 %out) local_unnamed_addr #6 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !23 !kernel_arg_base_type !23 !kernel_arg_type_qual !24 !kernel_arg_name !25 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %conv = uitofp i64 %call to float
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %idx, i64 %call
  %0 = load i32, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  %idxprom = zext i32 %0 to i64
  %arrayidx1 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom
  store float %conv, float addrspace(1)* %arrayidx1, align 4, !tbaa !13
  store i32 0, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  ret void
}

; Function Attrs: argmemonly nofree norecurse nosync nounwind
define dso_local spir_kernel void @halve(float addrspace(1)* nocapture noundef readonly align 4 %in, float addrspace(1)* nocapture noundef writeonly align 4 %out, float addrspace(1)* nocapture noundef readonly align 4 %lut) local_unnamed_addr #7 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !26 !kernel_arg_base_type !26 !kernel_arg_type_qual !27 !kernel_arg_name !28 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %0 = shl i64 %call, 32
  %idxprom = ashr exact i64 %0, 32
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %in, i64 %idxprom
  %1 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !13
  %cmp15 = fcmp ogt float %1, 1.000000e+00
  br i1 %cmp15, label %while.body, label %while.end

while.body:                                       ; preds = %entry, %while.body
  %v.016 = phi float [ %mul, %while.body ], [ %1, %entry ]
  %mul = fmul float %v.016, 5.000000e-01
  %cmp = fcmp ogt float %mul, 1.000000e+00
  br i1 %cmp, label %while.body, label %while.end

while.end:                                        ; preds = %while.body, %entry
  %v.0.lcssa = phi float [ %1, %entry ], [ %mul, %while.body ]
  %cmp2 = fcmp olt float %v.0.lcssa, 0.000000e+00
  br i1 %cmp2, label %if.then, label %if.end

if.then:                                          ; preds = %while.end
  %idxprom4 = and i64 %call, 15
  %arrayidx5 = getelementptr inbounds float, float addrspace(1)* %lut, i64 %idxprom4
  %2 = load float, float addrspace(1)* %arrayidx5, align 4, !tbaa !13
  br label %if.end

if.end:                                           ; preds = %if.then, %while.end
  %v.1 = phi float [ %2, %if.then ], [ %v.0.lcssa, %while.end ]
  %arrayidx7 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom
  store float %v.1, float addrspace(1)* %arrayidx7, align 4, !tbaa !13
  ret void
}

; Function Attrs: argmemonly nofree norecurse nosync nounwind
define dso_local spir_kernel void @halve2(float addrspace(1)* nocapture noundef readonly align 4 %in, float addrspace(1)* nocapture noundef writeonly align 4 %out) local_unnamed_addr #7 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !20 !kernel_arg_base_type !20 !kernel_arg_type_qual !18 !kernel_arg_name !29 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %0 = shl i64 %call, 32
  %idxprom = ashr exact i64 %0, 32
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %in, i64 %idxprom
  %1 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !13
  %cmp9 = fcmp ogt float %1, 1.000000e+00
  br i1 %cmp9, label %while.body, label %while.end

while.body:                                       ; preds = %entry, %while.body
  %v.010 = phi float [ %mul, %while.body ], [ %1, %entry ]
  %mul = fmul float %v.010, 5.000000e-01
  %cmp = fcmp ogt float %mul, 1.000000e+00
  br i1 %cmp, label %while.body, label %while.end

while.end:                                        ; preds = %while.body, %entry
  %v.0.lcssa = phi float [ %1, %entry ], [ %mul, %while.body ]
  %arrayidx3 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom
  store float %v.0.lcssa, float addrspace(1)* %arrayidx3, align 4, !tbaa !13
  ret void
}

; Function Attrs: argmemonly mustprogress nofree norecurse nosync nounwind willreturn
define dso_local spir_kernel void @chase2(i32 addrspace(1)* nocapture noundef align 4 %idx, float addrspace(1)* nocapture noundef writeonly align 4 %out, i32 noundef %n) local_unnamed_addr #6 !kernel_arg_addr_space !30 !kernel_arg_access_qual !5 !kernel_arg_type !31 !kernel_arg_base_type !31 !kernel_arg_type_qual !32 !kernel_arg_name !33 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #8
  %conv = trunc i64 %call to i32
  %conv1 = zext i32 %n to i64
  %add = add i64 %call, %conv1
  %arrayidx = getelementptr inbounds i32, i32 addrspace(1)* %idx, i64 %add
  store i32 %conv, i32 addrspace(1)* %arrayidx, align 4, !tbaa !9
  %conv2 = uitofp i64 %call to float
  %arrayidx3 = getelementptr inbounds i32, i32 addrspace(1)* %idx, i64 %call
  %0 = load i32, i32 addrspace(1)* %arrayidx3, align 4, !tbaa !9
  %idxprom = zext i32 %0 to i64
  %arrayidx4 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom
  store float %conv2, float addrspace(1)* %arrayidx4, align 4, !tbaa !13
  ret void
}

attributes #0 = { argmemonly convergent mustprogress nofree norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent mustprogress nofree nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent mustprogress norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #4 = { convergent mustprogress nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #5 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="128" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #6 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #7 = { argmemonly nofree norecurse nosync nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #8 = { nounwind readnone willreturn }
attributes #9 = { convergent nounwind readnone willreturn }
attributes #10 = { convergent }

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
!15 = !{i32 1, i32 1}
!16 = !{!"none", !"none"}
!17 = !{!"uint*", !"uint*"}
!18 = !{!"const", !""}
!19 = !{!"d", !"h"}
!20 = !{!"float*", !"float*"}
!21 = !{!"", !"const"}
!22 = !{!"out", !"in"}
!23 = !{!"uint*", !"float*"}
!24 = !{!"", !""}
!25 = !{!"idx", !"out"}
!26 = !{!"float*", !"float*", !"float*"}
!27 = !{!"const", !"", !"const"}
!28 = !{!"in", !"out", !"lut"}
!29 = !{!"in", !"out"}
!30 = !{i32 1, i32 1, i32 0}
!31 = !{!"uint*", !"float*", !"uint"}
!32 = !{!"", !"", !""}
!33 = !{!"idx", !"out", !"n"}
