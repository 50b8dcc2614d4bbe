; Hazards, static cost (thesis §5.3, Table 5.1) and the kernel-info summary.
; RUN: tutti-cc --passes='function(print<tutti-hazards>,print<tutti-cost>,print<tutti-index-range>)' %s --disable-output | FileCheck %s
; RUN: tutti-cc --passes='function(print<tutti-kernel-info>)' %s --disable-output | FileCheck %s --check-prefix=INFO
;
; Input: tutti-cc --prepare of
;   __kernel void hz(__read_only image2d_t img, __write_only image2d_t out, sampler_t s,
;                    __global float *g, __local float *l) {
;     int x = get_global_id(0), y = get_global_id(1);
;     float4 v = read_imagef(img, s, (int2)(x, y));
;     l[get_local_id(0)] = v.x;
;     barrier(CLK_LOCAL_MEM_FENCE);
;     mem_fence(CLK_GLOBAL_MEM_FENCE);
;     write_imagef(out, (int2)(x, y), v);
;     if (x == 0) printf("%f\n", l[0]);
;     g[x] = l[0];
;   }
;   __kernel void nested(__global const float *a, __global float *out, int n, int m) {
;     int t = get_global_id(0);
;     float acc = 0.0f;
;     for (int i = 0; i < n; ++i)
;       for (int j = 0; j < m; ++j) acc += a[i * m + j] * (float)t;
;     out[t] = acc;
;   }
;
; CHECK-LABEL: hazards 'hz': barrier mem_fence local_memory images image_writes printf
; CHECK-NEXT: max_dim 2
; CHECK-NEXT: virtualize: get_global_id
; CHECK-LABEL: hazards 'nested':
; CHECK: cost 'nested': f(x) = 8*arg(m)*arg(n) + 6*arg(n) + 11
; CHECK-NEXT: loop for.cond2.preheader (depth 1): arg(n); loop for.body6 (depth 2): arg(m)
; CHECK: load arg0 4B: 4*arg(m)*i0 + 4*i1
; CHECK-NEXT: loop i0: trip count arg(n)
; CHECK-NEXT: loop i1: trip count arg(m)
;
; INFO-LABEL: kernel hz (5 args, max_dim 2)
; INFO-NEXT: partitionable: no (writes images)
; INFO: arg 0 img : image image2d_t
; INFO: arg 2 s : sampler sampler_t
; INFO: arg 4 l : local float*
; INFO-LABEL: kernel nested (4 args, max_dim 1)
; INFO-NEXT: partitionable: yes
; INFO-NEXT: contiguity: contiguous
; INFO: cost f(x): 8*arg(m)*arg(n) + 6*arg(n) + 11

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

%opencl.image2d_ro_t = type opaque
%opencl.image2d_wo_t = type opaque
%opencl.sampler_t = type opaque

@.str = private unnamed_addr addrspace(2) constant [4 x i8] c"%f\0A\00", align 1

define dso_local spir_kernel void @hz(%opencl.image2d_ro_t addrspace(1)* %img, %opencl.image2d_wo_t addrspace(1)* %out, %opencl.sampler_t addrspace(2)* %s, float addrspace(1)* nocapture noundef writeonly align 4 %g, float addrspace(3)* nocapture noundef align 4 %l) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call5 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #7, !range !9
  %call1 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 1) #7
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #7
  %conv = trunc i64 %call to i32
  %conv2 = trunc i64 %call1 to i32
  %vecinit = insertelement <2 x i32> undef, i32 %conv, i64 0
  %vecinit3 = insertelement <2 x i32> %vecinit, i32 %conv2, i64 1
  %call4 = tail call spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(%opencl.image2d_ro_t addrspace(1)* %img, %opencl.sampler_t addrspace(2)* %s, <2 x i32> noundef %vecinit3) #8
  %0 = extractelement <4 x float> %call4, i64 0
  %arrayidx = getelementptr inbounds float, float addrspace(3)* %l, i64 %call5
  store float %0, float addrspace(3)* %arrayidx, align 4, !tbaa !10
  tail call spir_func void @_Z7barrierj(i32 noundef 1) #9
  tail call spir_func void @_Z9mem_fencej(i32 noundef 2) #9
  tail call spir_func void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(%opencl.image2d_wo_t addrspace(1)* %out, <2 x i32> noundef %vecinit3, <4 x float> noundef %call4) #9
  %cmp = icmp eq i32 %conv, 0
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %1 = load float, float addrspace(3)* %l, align 4, !tbaa !10
  %conv11 = fpext float %1 to double
  %call12 = tail call spir_func i32 (i8 addrspace(2)*, ...) @printf(i8 addrspace(2)* noundef getelementptr inbounds ([4 x i8], [4 x i8] addrspace(2)* @.str, i64 0, i64 0), double noundef %conv11) #9
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  %2 = load float, float addrspace(3)* %l, align 4, !tbaa !10
  %idxprom = sext i32 %conv to i64
  %arrayidx14 = getelementptr inbounds float, float addrspace(1)* %g, i64 %idxprom
  store float %2, float addrspace(1)* %arrayidx14, align 4, !tbaa !10
  ret void
}

declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i(%opencl.image2d_ro_t addrspace(1)*, %opencl.sampler_t addrspace(2)*, <2 x i32> noundef) local_unnamed_addr #2

declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func void @_Z7barrierj(i32 noundef) local_unnamed_addr #3

declare dso_local spir_func void @_Z9mem_fencej(i32 noundef) local_unnamed_addr #3

declare dso_local spir_func void @_Z12write_imagef14ocl_image2d_woDv2_iDv4_f(%opencl.image2d_wo_t addrspace(1)*, <2 x i32> noundef, <4 x float> noundef) local_unnamed_addr #3

declare dso_local spir_func noundef i32 @printf(i8 addrspace(2)* nocapture noundef readonly, ...) local_unnamed_addr #4

define dso_local spir_kernel void @nested(float addrspace(1)* nocapture noundef readonly align 4 %a, float addrspace(1)* nocapture noundef writeonly align 4 %out, i32 noundef %n, i32 noundef %m) local_unnamed_addr #5 !kernel_arg_addr_space !14 !kernel_arg_access_qual !15 !kernel_arg_type !16 !kernel_arg_base_type !16 !kernel_arg_type_qual !17 !kernel_arg_name !18 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #7
  %conv = trunc i64 %call to i32
  %cmp28 = icmp sgt i32 %n, 0
  br i1 %cmp28, label %for.cond2.preheader.lr.ph, label %for.cond.cleanup

for.cond2.preheader.lr.ph:                        ; preds = %entry
  %cmp325 = icmp sgt i32 %m, 0
  %conv7 = sitofp i32 %conv to float
  br label %for.cond2.preheader

for.cond2.preheader:                              ; preds = %for.cond2.preheader.lr.ph, %for.cond.cleanup5
  %i.030 = phi i32 [ 0, %for.cond2.preheader.lr.ph ], [ %inc10, %for.cond.cleanup5 ]
  %acc.029 = phi float [ 0.000000e+00, %for.cond2.preheader.lr.ph ], [ %acc.1.lcssa, %for.cond.cleanup5 ]
  br i1 %cmp325, label %for.body6.lr.ph, label %for.cond.cleanup5

for.body6.lr.ph:                                  ; preds = %for.cond2.preheader
  %mul = mul nsw i32 %i.030, %m
  br label %for.body6

for.cond.cleanup:                                 ; preds = %for.cond.cleanup5, %entry
  %acc.0.lcssa = phi float [ 0.000000e+00, %entry ], [ %acc.1.lcssa, %for.cond.cleanup5 ]
  %idxprom12 = sext i32 %conv to i64
  %arrayidx13 = getelementptr inbounds float, float addrspace(1)* %out, i64 %idxprom12
  store float %acc.0.lcssa, float addrspace(1)* %arrayidx13, align 4, !tbaa !10
  ret void

for.cond.cleanup5:                                ; preds = %for.body6, %for.cond2.preheader
  %acc.1.lcssa = phi float [ %acc.029, %for.cond2.preheader ], [ %1, %for.body6 ]
  %inc10 = add nuw nsw i32 %i.030, 1
  %cmp = icmp slt i32 %inc10, %n
  br i1 %cmp, label %for.cond2.preheader, label %for.cond.cleanup

for.body6:                                        ; preds = %for.body6.lr.ph, %for.body6
  %j.027 = phi i32 [ 0, %for.body6.lr.ph ], [ %inc, %for.body6 ]
  %acc.126 = phi float [ %acc.029, %for.body6.lr.ph ], [ %1, %for.body6 ]
  %add = add nsw i32 %j.027, %mul
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %a, i64 %idxprom
  %0 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !10
  %1 = tail call float @llvm.fmuladd.f32(float %0, float %conv7, float %acc.126)
  %inc = add nuw nsw i32 %j.027, 1
  %cmp3 = icmp slt i32 %inc, %m
  br i1 %cmp3, label %for.body6, label %for.cond.cleanup5
}

declare float @llvm.fmuladd.f32(float, float, float) #6

attributes #0 = { convergent mustprogress norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="128" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent mustprogress nofree nounwind readonly willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent mustprogress nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #4 = { convergent mustprogress nofree nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #5 = { argmemonly nofree norecurse nosync nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #6 = { mustprogress nocallback nofree nosync nounwind readnone speculatable willreturn }
attributes #7 = { nounwind readnone willreturn }
attributes #8 = { convergent nounwind readonly willreturn }
attributes #9 = { convergent }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 0, i32 1, i32 3}
!5 = !{!"read_only", !"write_only", !"none", !"none", !"none"}
!6 = !{!"image2d_t", !"image2d_t", !"sampler_t", !"float*", !"float*"}
!7 = !{!"", !"", !"", !"", !""}
!8 = !{!"img", !"out", !"s", !"g", !"l"}
!9 = !{i64 0, i64 1048576}
!10 = !{!11, !11, i64 0}
!11 = !{!"float", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C/C++ TBAA"}
!14 = !{i32 1, i32 1, i32 0, i32 0}
!15 = !{!"none", !"none", !"none", !"none"}
!16 = !{!"float*", !"float*", !"int", !"int"}
!17 = !{!"const", !"", !"", !""}
!18 = !{!"a", !"out", !"n", !"m"}
