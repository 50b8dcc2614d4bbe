; NVPTX: float rsqrt and sqrt become the GPU's approximate instructions (OpenCL allows 2 and
; 3 ulp), not libclc's correctly rounded sqrt.rn + rcp.rn; sqrt stays exact when the program
; asked for -cl-fp32-correctly-rounded-divide-sqrt; double overloads are never touched.
; RUN: tutti-cc --passes=tutti-nvptx-fast-builtins %s -o - | FileCheck %s --check-prefixes=CHECK,FAST
; RUN: tutti-cc --passes='tutti-nvptx-fast-builtins<cr>' %s -o - | FileCheck %s --check-prefixes=CHECK,CR
;
; CHECK-LABEL: define internal float @_Z5rsqrtf(float %0)
; CHECK: call float @llvm.nvvm.rsqrt.approx.f(float %0)
; FAST-LABEL: define internal <4 x float> @_Z4sqrtDv4_f(<4 x float> %0)
; FAST-COUNT-4: call float @llvm.nvvm.sqrt.approx.f(float
; CR: declare {{.*}}<4 x float> @_Z4sqrtDv4_f(<4 x float>
; CHECK: declare {{.*}}double @_Z5rsqrtd(double
; CHECK-LABEL: define internal <3 x float> @_Z12native_rsqrtDv3_f(<3 x float> %0)
; CHECK-COUNT-3: call float @llvm.nvvm.rsqrt.approx.f(float
; exp and log (also under <cr>): FMA sequences, no division, no table (libclc's are never
; linked); their accuracy is checked by fast_math/ulp_check.sh.
; CHECK-LABEL: define internal float @_Z3expf(float %0)
; CHECK-NOT: fdiv
; CHECK-COUNT-10: call float @llvm.fma.f32(
; CHECK: fptosi float
; CHECK-NOT: load
; CHECK: ret float
; CHECK-LABEL: define internal float @_Z3logf(float %0)
; CHECK-NOT: fdiv
; CHECK-COUNT-11: call float @llvm.fma.f32(
; CHECK-NOT: load
; CHECK: ret float

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

define spir_kernel void @k(ptr addrspace(1) %out, float %x, <4 x float> %v, double %d, <3 x float> %w) {
entry:
  %a = call float @_Z5rsqrtf(float %x)
  store float %a, ptr addrspace(1) %out, align 4
  %b = call <4 x float> @_Z4sqrtDv4_f(<4 x float> %v)
  %p1 = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 1
  store <4 x float> %b, ptr addrspace(1) %p1, align 16
  %c = call double @_Z5rsqrtd(double %d)
  %p2 = getelementptr inbounds double, ptr addrspace(1) %out, i64 4
  store double %c, ptr addrspace(1) %p2, align 8
  %e = call <3 x float> @_Z12native_rsqrtDv3_f(<3 x float> %w)
  %p3 = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 3
  store <3 x float> %e, ptr addrspace(1) %p3, align 16
  %ex = call float @_Z3expf(float %x)
  %lg = call float @_Z3logf(float %ex)
  %p4 = getelementptr inbounds float, ptr addrspace(1) %out, i64 16
  store float %lg, ptr addrspace(1) %p4, align 4
  ret void
}

declare float @_Z5rsqrtf(float)
declare <4 x float> @_Z4sqrtDv4_f(<4 x float>)
declare double @_Z5rsqrtd(double)
declare <3 x float> @_Z12native_rsqrtDv3_f(<3 x float>)
declare float @_Z3expf(float)
declare float @_Z3logf(float)
