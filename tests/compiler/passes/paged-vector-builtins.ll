; Paged-access kernel: vload3 / vstore3 / vstore_half on buffers are builtins
; the LPT rewrite cannot see into; they become element loads and stores first
; (never straddling a page), each then translated through its buffer's LPT.
; RUN: tutti-cc --passes=tutti-partition-ready,tutti-paged-access %s -o - | FileCheck %s
;
; Input: tutti-cc --prepare of
;   __kernel void v3(__global float *out, __global const float *in, __global half *h) {
;     size_t i = get_global_id(0); float3 a = vload3(i, in); vstore3(a, i, out);
;     vstore_half(a.y, i, h); }
;
; CHECK-LABEL: define dso_local spir_kernel void @v3__tutti_paged(
; CHECK-NOT: call {{.*}}vload3
; CHECK-COUNT-3: getelementptr i32, i32 addrspace(1)* %__tutti_lpt1
; CHECK-COUNT-3: store float %{{[0-9]+}}, float addrspace(1)*
; CHECK: fptrunc float %{{[0-9]+}} to half
; CHECK: getelementptr i32, i32 addrspace(1)* %__tutti_lpt2
; CHECK: store half %{{[0-9]+}}, half addrspace(1)* %{{[0-9]+}}, align 2
; CHECK-NOT: call {{.*}}vstore
; CHECK: ret void

; ModuleID = '/work/wt-vast/tutti-program.cl'
source_filename = "/work/wt-vast/tutti-program.cl"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

; Function Attrs: convergent mustprogress norecurse nounwind willreturn
define dso_local spir_kernel void @v3(float addrspace(1)* noundef align 4 %out, float addrspace(1)* noundef align 4 %in, half addrspace(1)* noundef align 2 %h) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #4
  %call1 = tail call spir_func <3 x float> @_Z6vload3mPU3AS1Kf(i64 noundef %call, float addrspace(1)* noundef %in) #5
  tail call spir_func void @_Z7vstore3Dv3_fmPU3AS1f(<3 x float> noundef %call1, i64 noundef %call, float addrspace(1)* noundef %out) #6
  %0 = extractelement <3 x float> %call1, i64 1
  tail call spir_func void @_Z11vstore_halffmPU3AS1Dh(float noundef %0, i64 noundef %call, half addrspace(1)* noundef %h) #6
  ret void
}

; Function Attrs: mustprogress nofree nosync nounwind readnone willreturn
declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent mustprogress nofree nounwind readonly willreturn
declare dso_local spir_func <3 x float> @_Z6vload3mPU3AS1Kf(i64 noundef, float addrspace(1)* noundef) local_unnamed_addr #2

; Function Attrs: convergent mustprogress nounwind willreturn
declare dso_local spir_func void @_Z7vstore3Dv3_fmPU3AS1f(<3 x float> noundef, i64 noundef, float addrspace(1)* noundef) local_unnamed_addr #3

; Function Attrs: convergent mustprogress nounwind willreturn
declare dso_local spir_func void @_Z11vstore_halffmPU3AS1Dh(float noundef, i64 noundef, half addrspace(1)* noundef) local_unnamed_addr #3

attributes #0 = { convergent mustprogress norecurse nounwind willreturn "frame-pointer"="all" "min-legal-vector-width"="96" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent mustprogress nofree nounwind readonly willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent mustprogress nounwind willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #4 = { nounwind readnone willreturn }
attributes #5 = { convergent nounwind readonly willreturn }
attributes #6 = { convergent }

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
!6 = !{!"float*", !"float*", !"half*"}
!7 = !{!"", !"const", !""}
!8 = !{!"out", !"in", !"h"}
