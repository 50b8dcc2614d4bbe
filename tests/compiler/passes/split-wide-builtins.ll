; spir64: element-wise builtins on vectors over 32 bytes call the same builtin on halves,
; down to 32 bytes (PoCL's library wrappers for the wide ones drop their arguments: issue
; 21, piglit builtin-float-atan2 float16). 32-byte and smaller calls, and builtins that are
; not element-wise, stay as they are.
; RUN: tutti-cc --passes=tutti-split-wide-builtins %s -o - | FileCheck %s
;
; CHECK-LABEL: define internal spir_func <16 x float> @_Z5atan2Dv16_fS_(<16 x float> %0, <16 x float> %1)
; CHECK: shufflevector <16 x float> %0, <16 x float> poison, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
; CHECK: call spir_func <8 x float> @_Z5atan2Dv8_fS_(
; CHECK: shufflevector <16 x float> %0, <16 x float> poison, <8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
; CHECK: call spir_func <8 x float> @_Z5atan2Dv8_fS_(
; CHECK: ret <16 x float>
; CHECK-LABEL: define internal spir_func <16 x double> @_Z4cbrtDv16_d(<16 x double> %0)
; CHECK-COUNT-2: call spir_func <8 x double> @_Z4cbrtDv8_d(
; CHECK-LABEL: define internal spir_func <16 x float> @_Z5fractDv16_fPU3AS1S_(<16 x float> %0, <16 x float> addrspace(1)* %1)
; CHECK: bitcast <16 x float> addrspace(1)* %1 to <8 x float> addrspace(1)*
; CHECK: getelementptr inbounds <8 x float>, <8 x float> addrspace(1)* %{{.*}}, i64 1
; CHECK-DAG: declare spir_func <8 x float> @_Z5atan2Dv8_fS_(<8 x float>, <8 x float>)
; CHECK-DAG: declare spir_func <8 x float> @_Z7shuffleDv8_fDv8_j(
; CHECK-LABEL: define internal spir_func <8 x double> @_Z4cbrtDv8_d(<8 x double> %0)
; CHECK-COUNT-2: call spir_func <4 x double> @_Z4cbrtDv4_d(
; CHECK: declare spir_func <4 x double> @_Z4cbrtDv4_d(<4 x double>)

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

define spir_kernel void @k(<16 x float> addrspace(1)* %out, <16 x double> addrspace(1)* %dout, <16 x float> %a, <16 x float> %b, <16 x double> %d, <8 x float> %s) {
entry:
  %r = call spir_func <16 x float> @_Z5atan2Dv16_fS_(<16 x float> %a, <16 x float> %b)
  store <16 x float> %r, <16 x float> addrspace(1)* %out, align 64
  %c = call spir_func <16 x double> @_Z4cbrtDv16_d(<16 x double> %d)
  store <16 x double> %c, <16 x double> addrspace(1)* %dout, align 128
  %f = call spir_func <16 x float> @_Z5fractDv16_fPU3AS1S_(<16 x float> %a, <16 x float> addrspace(1)* %out)
  %p = getelementptr inbounds <16 x float>, <16 x float> addrspace(1)* %out, i64 1
  store <16 x float> %f, <16 x float> addrspace(1)* %p, align 64
  %t = call spir_func <8 x float> @_Z5atan2Dv8_fS_(<8 x float> %s, <8 x float> %s)
  %u = call spir_func <8 x float> @_Z7shuffleDv8_fDv8_j(<8 x float> %t, <8 x i32> zeroinitializer)
  %q = getelementptr inbounds <16 x float>, <16 x float> addrspace(1)* %out, i64 2
  %qq = bitcast <16 x float> addrspace(1)* %q to <8 x float> addrspace(1)*
  store <8 x float> %u, <8 x float> addrspace(1)* %qq, align 32
  ret void
}

declare spir_func <16 x float> @_Z5atan2Dv16_fS_(<16 x float>, <16 x float>)
declare spir_func <16 x double> @_Z4cbrtDv16_d(<16 x double>)
declare spir_func <16 x float> @_Z5fractDv16_fPU3AS1S_(<16 x float>, <16 x float> addrspace(1)*)
declare spir_func <8 x float> @_Z5atan2Dv8_fS_(<8 x float>, <8 x float>)
declare spir_func <8 x float> @_Z7shuffleDv8_fDv8_j(<8 x float>, <8 x i32>)
