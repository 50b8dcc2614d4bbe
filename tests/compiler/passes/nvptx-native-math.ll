; NVPTX: the float math intrinsics libclc's native_* functions call (the backend would
; expand them into expf, exp2f, ... calls that do not exist on the GPU and abort) become
; PTX's approx instructions, element by element on vectors; double ones are left for
; emitPTX to refuse (the backend cannot lower those either).
; RUN: tutti-cc --passes=tutti-nvptx-native-math %s -o - | FileCheck %s
;
; CHECK-LABEL: define spir_kernel void @k(
; CHECK: %e2 = call float @llvm.nvvm.ex2.approx.f(float %x)
; CHECK: [[M:%.*]] = fmul float %x, 0x3FF7154760000000
; CHECK-NEXT: %e = call float @llvm.nvvm.ex2.approx.f(float [[M]])
; CHECK: %l2 = call float @llvm.nvvm.lg2.approx.f(float %x)
; CHECK: [[L:%.*]] = call float @llvm.nvvm.lg2.approx.f(float %x)
; CHECK-NEXT: %l = fmul float [[L]], 0x3FE62E4300000000
; CHECK: [[T:%.*]] = call float @llvm.nvvm.lg2.approx.f(float %x)
; CHECK-NEXT: %l10 = fmul float [[T]], 0x3FD3441360000000
; CHECK: %s = call float @llvm.nvvm.sin.approx.f(float %x)
; CHECK: %c = call float @llvm.nvvm.cos.approx.f(float %x)
; CHECK: [[P:%.*]] = call fast float @llvm.nvvm.lg2.approx.f(float %x)
; CHECK-NEXT: [[Q:%.*]] = fmul fast float %y, [[P]]
; CHECK-NEXT: %p = call fast float @llvm.nvvm.ex2.approx.f(float [[Q]])
; CHECK-COUNT-4: call float @llvm.nvvm.sin.approx.f(float
; CHECK: %d = call double @llvm.exp2.f64(double %a)
; CHECK-NOT: call float @llvm.exp2.f32
; CHECK-NOT: call float @llvm.sin.f32

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

define spir_kernel void @k(ptr addrspace(1) %out, float %x, float %y, <4 x float> %v, double %a) {
entry:
  %e2 = call float @llvm.exp2.f32(float %x)
  %e = call float @llvm.exp.f32(float %x)
  %l2 = call float @llvm.log2.f32(float %x)
  %l = call float @llvm.log.f32(float %x)
  %l10 = call float @llvm.log10.f32(float %x)
  %s = call float @llvm.sin.f32(float %x)
  %c = call float @llvm.cos.f32(float %x)
  %p = call fast float @llvm.pow.f32(float %x, float %y)
  %sum0 = fadd float %e2, %e
  %sum1 = fadd float %sum0, %l2
  %sum2 = fadd float %sum1, %l
  %sum3 = fadd float %sum2, %l10
  %sum4 = fadd float %sum3, %s
  %sum5 = fadd float %sum4, %c
  %sum6 = fadd float %sum5, %p
  store float %sum6, ptr addrspace(1) %out, align 4
  %vs = call <4 x float> @llvm.sin.v4f32(<4 x float> %v)
  %p1 = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 1
  store <4 x float> %vs, ptr addrspace(1) %p1, align 16
  %d = call double @llvm.exp2.f64(double %a)
  %p2 = getelementptr inbounds double, ptr addrspace(1) %out, i64 4
  store double %d, ptr addrspace(1) %p2, align 8
  ret void
}

declare float @llvm.exp2.f32(float)
declare float @llvm.exp.f32(float)
declare float @llvm.log2.f32(float)
declare float @llvm.log.f32(float)
declare float @llvm.log10.f32(float)
declare float @llvm.sin.f32(float)
declare float @llvm.cos.f32(float)
declare float @llvm.pow.f32(float, float)
declare <4 x float> @llvm.sin.v4f32(<4 x float>)
declare double @llvm.exp2.f64(double)
