; NVPTX: a float division that OpenCL lets be 2.5 ulp (clang's !fpmath) becomes div.full.f32
; (at most 2 ulp), element by element on vectors, and 1 / x rcp.approx.f32 (1 ulp); a correctly rounded one (no !fpmath, as
; under -cl-fp32-correctly-rounded-divide-sqrt) and double division stay fdiv (div.rn).
; RUN: tutti-cc --passes=tutti-nvptx-fast-divide %s -o - | FileCheck %s
;
; CHECK-LABEL: define spir_kernel void @k(
; CHECK: %q = call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float %x, float %y)
; CHECK-COUNT-4: call float asm "div.full.f32 $0, $1, $2;", "=f,f,f"(float
; CHECK: %exact = fdiv float %x, %y
; CHECK-NOT: !fpmath
; CHECK: %d = fdiv double
; 1 / x is a reciprocal.
; CHECK-LABEL: define internal float @helper(
; CHECK: call float asm "rcp.approx.f32 $0, $1;", "=f,f"(float %x)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

define spir_kernel void @k(ptr addrspace(1) %out, float %x, float %y, <4 x float> %v, <4 x float> %w, double %a, double %b) {
entry:
  %q = fdiv float %x, %y, !fpmath !0
  store float %q, ptr addrspace(1) %out, align 4
  %vq = fdiv <4 x float> %v, %w, !fpmath !0
  %p1 = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 1
  store <4 x float> %vq, ptr addrspace(1) %p1, align 16
  %exact = fdiv float %x, %y
  %p2 = getelementptr inbounds float, ptr addrspace(1) %out, i64 8
  store float %exact, ptr addrspace(1) %p2, align 4
  %d = fdiv double %a, %b, !fpmath !0
  %p3 = getelementptr inbounds double, ptr addrspace(1) %out, i64 5
  store double %d, ptr addrspace(1) %p3, align 8
  %h = call float @helper(float %x)
  %p4 = getelementptr inbounds float, ptr addrspace(1) %out, i64 12
  store float %h, ptr addrspace(1) %p4, align 4
  ret void
}

define internal float @helper(float %x) {
  %r = fdiv float 1.0, %x, !fpmath !0
  ret float %r
}

!0 = !{float 2.500000e+00}
