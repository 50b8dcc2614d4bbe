; Partition-ready transform: K__tutti_pr gets the 16 ABI arguments and every
; work-item function answers as in the full launch (see compiler/README.md).
; RUN: tutti-cc --passes=tutti-partition-ready %s -o - | FileCheck %s
;
; Input: tutti-cc --prepare -cl-std=CL2.0 of
;   __kernel void k(__global ulong *out, uint d) {
;     size_t i = get_global_id(0);
;     out[i*8+0] = get_group_id(1);      out[i*8+1] = get_num_groups(d);
;     out[i*8+2] = get_global_size(5);   out[i*8+3] = get_work_dim();
;     out[i*8+4] = get_local_id(0);      out[i*8+5] = get_global_offset(2);
;     out[i*8+6] = get_enqueued_local_size(0); out[i*8+7] = get_global_linear_id(); }
;
; The original kernel stays untouched.
; CHECK-LABEL: define dso_local spir_kernel void @k(
; CHECK: call spir_func i64 @_Z12get_group_idj(i32 noundef 1)
; CHECK: ret void
;
; CHECK-LABEL: define dso_local spir_kernel void @k__tutti_pr(i64 addrspace(1)* {{.*}}%out, i32 noundef %d, i64 %__tutti_wg_offset0, i64 %__tutti_wg_offset1, i64 %__tutti_wg_offset2, i64 %__tutti_num_groups0, i64 %__tutti_num_groups1, i64 %__tutti_num_groups2, i64 %__tutti_global_size0, i64 %__tutti_global_size1, i64 %__tutti_global_size2, i64 %__tutti_local_size0, i64 %__tutti_local_size1, i64 %__tutti_local_size2, i64 %__tutti_gid_base0, i64 %__tutti_gid_base1, i64 %__tutti_gid_base2, i64 %__tutti_work_dim)
; CHECK-SAME: !kernel_arg_addr_space [[AS:![0-9]+]]
; CHECK-SAME: !kernel_arg_name [[NAMES:![0-9]+]]
; get_global_linear_id: (hw global id + wg_offset*local_size) per dimension
; CHECK: [[B0:%[0-9]+]] = mul i64 %__tutti_wg_offset0, %__tutti_local_size0
; CHECK-NEXT: [[HW0:%[0-9]+]] = call spir_func i64 @_Z13get_global_idj(i32 0)
; CHECK-NEXT: add i64 [[HW0]], [[B0]]
; get_global_offset(2) = gid_base - wg_offset*local_size
; CHECK: [[GO2:%[0-9]+]] = sub i64 %__tutti_gid_base2, %{{[0-9]+}}
; local ids are not virtualized
; CHECK: call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
; get_work_dim
; CHECK: trunc i64 %__tutti_work_dim to i32
; get_group_id(1) = hardware group id + wg_offset[1]
; CHECK: [[G1:%[0-9]+]] = call spir_func i64 @_Z12get_group_idj(i32 1)
; CHECK-NEXT: [[G1V:%[0-9]+]] = add i64 [[G1]], %__tutti_wg_offset1
; get_global_id(0) = hardware global id + gid_base[0]: one add
; CHECK: [[GID:%[0-9]+]] = call spir_func i64 @_Z13get_global_idj(i32 0)
; CHECK-NEXT: add i64 [[GID]], %__tutti_gid_base0
; CHECK: store i64 [[G1V]]
; get_num_groups(d), non-constant dimension: select over the ABI values, 1 beyond 2
; CHECK: icmp eq i32 %d, 2
; CHECK-NEXT: select i1 %{{[0-9]+}}, i64 %__tutti_num_groups2, i64 1
; CHECK: icmp eq i32 %d, 0
; CHECK-NEXT: [[NG:%[0-9]+]] = select i1 %{{[0-9]+}}, i64 %__tutti_num_groups0
; CHECK: store i64 [[NG]]
; get_global_size(5) == 1
; CHECK: store i64 1,
; get_global_offset(2) and get_enqueued_local_size(0) come from the arguments
; CHECK: store i64 [[GO2]],
; CHECK: store i64 %__tutti_local_size0,
; no hardware query remains for the virtualized functions
; CHECK-NOT: @_Z14get_num_groupsj
; CHECK-NOT: @_Z17get_global_offsetj
; CHECK-NOT: @_Z23get_enqueued_local_sizej
; CHECK: ret void
; The kernel argument metadata covers the new arguments.
; CHECK: [[AS]] = !{i32 1, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0}
; CHECK: [[NAMES]] = !{!"out", !"d", !"__tutti_wg_offset0",
; CHECK-SAME: !"__tutti_work_dim"}

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define dso_local spir_kernel void @k(i64 addrspace(1)* nocapture noundef writeonly align 8 %out, i32 noundef %d) local_unnamed_addr #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %call26 = tail call spir_func i64 @_Z20get_global_linear_idv()
  %call22 = tail call spir_func i64 @_Z23get_enqueued_local_sizej(i32 noundef 0), !range !9
  %call18 = tail call spir_func i64 @_Z17get_global_offsetj(i32 noundef 2) #2
  %call14 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0) #2, !range !10
  %call10 = tail call spir_func i32 @_Z12get_work_dimv() #2, !range !11
  %call6 = tail call spir_func i64 @_Z15get_global_sizej(i32 noundef 5) #2
  %call1 = tail call spir_func i64 @_Z12get_group_idj(i32 noundef 1) #2
  %call = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #2
  %mul = shl i64 %call, 3
  %arrayidx = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %mul
  store i64 %call1, i64 addrspace(1)* %arrayidx, align 8, !tbaa !12
  %call2 = tail call spir_func i64 @_Z14get_num_groupsj(i32 noundef %d) #2
  %add4 = or i64 %mul, 1
  %arrayidx5 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add4
  store i64 %call2, i64 addrspace(1)* %arrayidx5, align 8, !tbaa !12
  %add8 = or i64 %mul, 2
  %arrayidx9 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add8
  store i64 %call6, i64 addrspace(1)* %arrayidx9, align 8, !tbaa !12
  %conv = zext i32 %call10 to i64
  %add12 = or i64 %mul, 3
  %arrayidx13 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add12
  store i64 %conv, i64 addrspace(1)* %arrayidx13, align 8, !tbaa !12
  %add16 = or i64 %mul, 4
  %arrayidx17 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add16
  store i64 %call14, i64 addrspace(1)* %arrayidx17, align 8, !tbaa !12
  %add20 = or i64 %mul, 5
  %arrayidx21 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add20
  store i64 %call18, i64 addrspace(1)* %arrayidx21, align 8, !tbaa !12
  %add24 = or i64 %mul, 6
  %arrayidx25 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add24
  store i64 %call22, i64 addrspace(1)* %arrayidx25, align 8, !tbaa !12
  %add28 = or i64 %mul, 7
  %arrayidx29 = getelementptr inbounds i64, i64 addrspace(1)* %out, i64 %add28
  store i64 %call26, i64 addrspace(1)* %arrayidx29, align 8, !tbaa !12
  ret void
}

declare dso_local spir_func i64 @_Z13get_global_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z12get_group_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z14get_num_groupsj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z15get_global_sizej(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i32 @_Z12get_work_dimv() local_unnamed_addr #1

declare dso_local spir_func i64 @_Z12get_local_idj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z17get_global_offsetj(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z23get_enqueued_local_sizej(i32 noundef) local_unnamed_addr #1

declare dso_local spir_func i64 @_Z20get_global_linear_idv() local_unnamed_addr #1

attributes #0 = { argmemonly mustprogress nofree norecurse nosync nounwind willreturn writeonly "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress nofree nosync nounwind readnone willreturn "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { nounwind readnone willreturn }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!opencl.spir.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 2, i32 0}
!3 = !{!"Debian clang version 15.0.6"}
!4 = !{i32 1, i32 0}
!5 = !{!"none", !"none"}
!6 = !{!"ulong*", !"uint"}
!7 = !{!"", !""}
!8 = !{!"out", !"d"}
!9 = !{i64 1, i64 1048577}
!10 = !{i64 0, i64 1048576}
!11 = !{i32 1, i32 4}
!12 = !{!13, !13, i64 0}
!13 = !{!"long", !14, i64 0}
!14 = !{!"omnipotent char", !15, i64 0}
!15 = !{!"Simple C/C++ TBAA"}
