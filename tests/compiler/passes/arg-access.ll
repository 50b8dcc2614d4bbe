; Argument access + index-range analyses: aliasing through a select of two
; arguments, a helper function (inlined), a cast to another element type, a
; combinable atomic, and a pointer that escapes through memory.
; RUN: tutti-cc --passes='function(print<tutti-arg-access>,print<tutti-index-range>)' %s --disable-output | FileCheck %s
;
; Input: tutti-cc --prepare of
;   typedef struct { __global float *p; } holder;
;   static void put(__global float *q, int i, float v) { q[i] = v; }
;   __kernel void alias(__global float *a, __global float *b, __global const float *c,
;                       __global float *d, __global int *e, int sel) {
;     int i = get_global_id(0);
;     __global float *p = sel ? a : b;          // select of two arguments
;     p[i] = c[i];                              // store through it: a, b written (range unknown)
;     put(d, i, 1.0f);                          // helper function (inlined)
;     __global uint *u = (__global uint *)d;    // cast
;     u[i + 1] |= 1u;                           // read + write d through another type
;     atomic_add(&e[0], 1);                     // combinable atomic
;   }
;   __kernel void escape(__global float *a) {
;     // a pointer stored to (volatile) memory escapes the analysis
;     __global float *volatile tmp[2];
;     tmp[get_global_id(0) & 1] = a;
;     tmp[0][0] = 1.0f;
;   }
;
; CHECK-LABEL: arg-access 'alias'
; CHECK-NEXT: arg 0 a: global W
; CHECK-NEXT: arg 1 b: global W
; CHECK-NEXT: arg 2 c: global R
; CHECK-NEXT: arg 3 d: global RW
; CHECK-NEXT: arg 4 e: global A ops=add
; CHECK-NEXT: arg 5 sel: scalar
; CHECK-LABEL: index-range 'alias'
; CHECK-NEXT: load arg2 4B: 4*grp.x*elsz.x + 4*lid.x + 4*goff.x
; CHECK-NEXT: store ? 4B: pointer may point into several arguments
; CHECK-NEXT: store arg3 4B: 4*grp.x*elsz.x + 4*lid.x + 4*goff.x
; CHECK-NEXT: load arg3 4B: 4*grp.x*elsz.x + 4*lid.x + 4*goff.x + 4
; CHECK-NEXT: store arg3 4B: 4*grp.x*elsz.x + 4*lid.x + 4*goff.x + 4
; CHECK-NEXT: atomic arg4 4B: 0
; CHECK-LABEL: arg-access 'escape'
; CHECK-NEXT: arg 0 a: global RW escapes(pointer stored to memory)
; CHECK-NEXT: unknown-global-access
; CHECK-LABEL: index-range 'escape'
; CHECK-NEXT: store ? 4B: pointer of unknown origin

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define dso_local spir_kernel void @alias(float addrspace(1)* nocapture noundef writeonly align 4 %a, float addrspace(1)* nocapture noundef writeonly align 4 %b, float addrspace(1)* nocapture noundef readonly align 4 %c, float addrspace(1)* nocapture noundef align 4 %d, i32 addrspace(1)* noundef align 4 %e, i32 noundef %sel) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %conv = trunc i64 %call to i32
  %tobool.not = icmp eq i32 %sel, 0
  %cond = select i1 %tobool.not, float addrspace(1)* %b, float addrspace(1)* %a
  %idxprom = sext i32 %conv to i64
  %arrayidx = getelementptr inbounds float, float addrspace(1)* %c, i64 %idxprom
  %0 = load float, float addrspace(1)* %arrayidx, align 4, !tbaa !9
  %arrayidx2 = getelementptr inbounds float, float addrspace(1)* %cond, i64 %idxprom
  store float %0, float addrspace(1)* %arrayidx2, align 4, !tbaa !9
  %arrayidx.i = getelementptr inbounds float, float addrspace(1)* %d, i64 %idxprom
  store float 1.000000e+00, float addrspace(1)* %arrayidx.i, align 4, !tbaa !9
  %add = add nsw i32 %conv, 1
  %idxprom3 = sext i32 %add to i64
  %arrayidx417 = getelementptr inbounds float, float addrspace(1)* %d, i64 %idxprom3
  %arrayidx4 = bitcast float addrspace(1)* %arrayidx417 to i32 addrspace(1)*
  %1 = load i32, i32 addrspace(1)* %arrayidx4, align 4, !tbaa !13
  %or = or i32 %1, 1
  store i32 %or, i32 addrspace(1)* %arrayidx4, align 4, !tbaa !13
  %call6 = tail call spir_func i32 @_Z10atomic_addPU3AS1Vii(i32 addrspace(1)* noundef %e, i32 noundef 1) #6
  ret void
}

declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #1

declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #2

declare dso_local spir_func i32 @_Z10atomic_addPU3AS1Vii(i32 addrspace(1)* noundef, i32 noundef) local_unnamed_addr #3

declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #1

define dso_local spir_kernel void @escape(float addrspace(1)* noundef align 4 %a) local_unnamed_addr #4 !kernel_arg_addr_space !15 !kernel_arg_access_qual !16 !kernel_arg_type !17 !kernel_arg_base_type !17 !kernel_arg_type_qual !18 !kernel_arg_name !19 {
entry:
  %tmp = alloca [2 x float addrspace(1)*], align 8
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %0 = bitcast [2 x float addrspace(1)*]* %tmp to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* nonnull %0) #7
  %and = and i64 %call, 1
  %arrayidx = getelementptr inbounds [2 x float addrspace(1)*], [2 x float addrspace(1)*]* %tmp, i64 0, i64 %and
  store volatile float addrspace(1)* %a, float addrspace(1)** %arrayidx, align 8, !tbaa !20
  %arrayidx1 = getelementptr inbounds [2 x float addrspace(1)*], [2 x float addrspace(1)*]* %tmp, i64 0, i64 0
  %1 = load volatile float addrspace(1)*, float addrspace(1)** %arrayidx1, align 8, !tbaa !20
  store float 1.000000e+00, float addrspace(1)* %1, align 4, !tbaa !9
  call void @llvm.lifetime.end.p0i8(i64 16, i8* nonnull %0) #7
  ret void
}

attributes #0 = { convergent mustprogress norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { argmemonly mustprogress nocallback nofree nosync nounwind willreturn }
attributes #2 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent mustprogress nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #4 = { nofree norecurse nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #5 = { nounwind readnone willreturn }
attributes #6 = { convergent }
attributes #7 = { nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 1, i32 2}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 1, i32 1, i32 1, i32 1, i32 0}
!5 = !{!"none", !"none", !"none", !"none", !"none", !"none"}
!6 = !{!"float*", !"float*", !"float*", !"float*", !"int*", !"int"}
!7 = !{!"", !"", !"const", !"", !"", !""}
!8 = !{!"a", !"b", !"c", !"d", !"e", !"sel"}
!9 = !{!10, !10, i64 0}
!10 = !{!"float", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"int", !11, i64 0}
!15 = !{i32 1}
!16 = !{!"none"}
!17 = !{!"float*"}
!18 = !{!""}
!19 = !{!"a"}
!20 = !{!21, !21, i64 0}
!21 = !{!"any pointer", !11, i64 0}
