; The NVPTX bodies of exp and log (tutti-nvptx-fast-builtins), called from plain functions so
; that ulp_check.sh can build them for the host and compare every sampled float with double
; precision.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

define float @tutti_test_exp(float %x) {
  %r = call float @_Z3expf(float %x)
  ret float %r
}
define float @tutti_test_log(float %x) {
  %r = call float @_Z3logf(float %x)
  ret float %r
}
define <2 x float> @tutti_test_exp2v(<2 x float> %x) {
  %r = call <2 x float> @_Z3expDv2_f(<2 x float> %x)
  ret <2 x float> %r
}
declare float @_Z3expf(float)
declare float @_Z3logf(float)
declare <2 x float> @_Z3expDv2_f(<2 x float>)
