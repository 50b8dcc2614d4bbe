; Preparation passes run before the analyses:
;  tutti-force-inline: helpers become internal + alwaysinline, kernels lose
;    noinline/optnone; tutti-canonicalize-builtins: builtins get nounwind +
;    willreturn, work-item calls are hoisted/shared and get !range;
;  tutti-lower-vload: vload4/vstore4 become vector loads/stores.
; RUN: tutti-cc --passes='tutti-force-inline,always-inline,tutti-canonicalize-builtins,function(tutti-lower-vload)' %s -o - | FileCheck %s
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define spir_func float @helper(float %x) #0 {
  %r = fmul float %x, 2.0
  ret float %r
}

define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %gs = call spir_func i64 @_Z15get_global_sizej(i32 0) #1
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0) #1
  %v = call spir_func <4 x float> @_Z6vload4mPU3AS1Kf(i64 %gid, ptr addrspace(1) %in)
  %x = extractelement <4 x float> %v, i32 0
  %y = call spir_func float @helper(float %x)
  %v2 = insertelement <4 x float> %v, float %y, i32 1
  call spir_func void @_Z7vstore4Dv4_fmPU3AS1f(<4 x float> %v2, i64 %gs, ptr addrspace(1) %out)
  call spir_func void @_Z7barrierj(i32 1) #1
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0) #1
  %gid2 = call spir_func i64 @_Z13get_global_idj(i32 0) #1
  %s = add i64 %lid, %gid2
  %p = getelementptr float, ptr addrspace(1) %out, i64 %s
  store float 0.0, ptr addrspace(1) %p
  ret void
}

declare spir_func i64 @_Z15get_global_sizej(i32) #2
declare spir_func i64 @_Z13get_global_idj(i32) #2
declare spir_func i64 @_Z12get_local_idj(i32) #2
declare spir_func <4 x float> @_Z6vload4mPU3AS1Kf(i64, ptr addrspace(1))
declare spir_func void @_Z7vstore4Dv4_fmPU3AS1f(<4 x float>, i64, ptr addrspace(1))
declare spir_func void @_Z7barrierj(i32) #1

attributes #0 = { noinline optnone convergent nounwind }
attributes #1 = { convergent }
attributes #2 = { convergent nounwind readnone }

; the helper is inlined and gone
; CHECK-NOT: define {{.*}} @helper
; CHECK-LABEL: define spir_kernel void @k(
; CHECK-SAME: #[[KATTR:[0-9]+]]
; work-item calls hoisted into the entry block, one per function and dimension
; CHECK-NEXT: entry:
; CHECK-DAG: [[LID:%lid]] = call spir_func i64 @_Z12get_local_idj(i32 0){{.*}}, !range [[LR:![0-9]+]]
; CHECK-DAG: [[GID:%gid]] = call spir_func i64 @_Z13get_global_idj(i32 0)
; CHECK-DAG: [[GS:%gs]] = call spir_func i64 @_Z15get_global_sizej(i32 0)
; CHECK: loop:
; vload4(gid, in): element-aligned vector load at in + 4*gid floats
; CHECK: [[IDX:%[0-9]+]] = mul i64 [[GID]], 4
; CHECK-NEXT: [[P:%[0-9]+]] = getelementptr inbounds float, ptr addrspace(1) %in, i64 [[IDX]]
; CHECK-NEXT: load <4 x float>, ptr addrspace(1) [[P]], align 4
; CHECK: fmul float
; CHECK: [[IDX2:%[0-9]+]] = mul i64 [[GS]], 4
; CHECK-NEXT: [[Q:%[0-9]+]] = getelementptr inbounds float, ptr addrspace(1) %out, i64 [[IDX2]]
; CHECK-NEXT: store <4 x float> %v2, ptr addrspace(1) [[Q]], align 4
; CHECK: call spir_func void @_Z7barrierj(i32 1)
; CHECK: exit:
; CHECK-NEXT: %s = add i64 [[LID]], [[GID]]
; CHECK-NOT: vload4
; CHECK-NOT: vstore4
; builtins: nounwind willreturn; work-item functions no longer convergent
; CHECK: declare spir_func i64 @_Z15get_global_sizej(i32) #[[WI:[0-9]+]]
; CHECK: declare spir_func void @_Z7barrierj(i32) #[[BAR:[0-9]+]]
; CHECK: attributes #[[KATTR]] = { convergent nounwind }
; CHECK: attributes #[[WI]] = { nounwind readnone willreturn }
; CHECK: attributes #[[BAR]] = { convergent nounwind willreturn }
; CHECK: [[LR]] = !{i64 0, i64 1048576}
