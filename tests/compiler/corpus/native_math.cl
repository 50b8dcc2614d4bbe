// Every native_* function of OpenCL C on float and float4 compiles for NVIDIA, to PTX's
// approx instructions (tutti-nvptx-native-math): the NVPTX backend used to abort the
// process on the libm calls it expanded them into ("Undefined external symbol exp2f").
// RUN: tutti-cc --target=nvptx64 --quiet --emit-ptx=- %s | FileCheck %s
// CHECK: .entry native_math(
// CHECK-DAG: ex2.approx.f32
// CHECK-DAG: lg2.approx.f32
// CHECK-DAG: sin.approx.f32
// CHECK-DAG: cos.approx.f32
// CHECK-NOT: exp2f
// CHECK-NOT: .extern
__kernel void native_math(__global float *a, __global float4 *v) {
  int i = get_global_id(0);
  float x = a[i];
  float4 w = v[i];
  a[i] = native_exp(x) + native_exp2(x) + native_exp10(x) + native_log(x) + native_log2(x) +
         native_log10(x) + native_sin(x) + native_cos(x) + native_tan(x) + native_powr(x, 2.4f) +
         native_recip(x) + native_rsqrt(x) + native_sqrt(x) + native_divide(x, 3.0f);
  v[i] = native_exp(w) + native_log2(w) + native_sin(w) + native_powr(w, w) + native_cos(w);
}
