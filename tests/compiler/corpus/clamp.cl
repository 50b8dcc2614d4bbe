// Clamped neighbour indices (issue 18, VAST): min/max/clamp builtins and the
// selects that ternary clamps compile to become smin/smax/umin/umax, and
// guards on global ids bound the ids themselves ([gid.x <= ...]).
// RUN: tutti-cc %s | FileCheck %s
// CHECK: kernel builtins
// CHECK: arg 0 in : global float* access=R range=affine
// CHECK: load 4B @ 4*arg(w)*smax(0, grp.y*elsz.y + lid.y + goff.y - 1) + 4*smax(0, grp.x*elsz.x + lid.x + goff.x - 1)
// CHECK-SAME: [gid.x <= arg(w) - 1]  [gid.y <= arg(h) - 1]
// CHECK: load 4B @ 4*arg(w)*smin(grp.y*elsz.y + lid.y + goff.y + 1, arg(h) - 1) + 4*smin(grp.x*elsz.x + lid.x + goff.x + 1, arg(w) - 1)
// CHECK: load 4B @ 4*umin(arg(n) - 2, umax(
// CHECK: kernel ternary
// CHECK: arg 0 in : global float* access=R range=affine
// CHECK: load 4B @ 4*smax(1, grp.y*elsz.y + lid.y + goff.y)*arg(w) - 4*arg(w) + 4*smax(0, grp.x*elsz.x + lid.x + goff.x - 1)
// CHECK: load 4B @ 4*arg(w)*smin(grp.y*elsz.y + lid.y + goff.y + 1, arg(h) - 1) + 4*smin(grp.x*elsz.x + lid.x + goff.x + 1, arg(w) - 1)
// CHECK: kernel interior
// CHECK: load 4B @
// CHECK: load 4B @
// CHECK-SAME: [gid.x >= arg(R)]  [gid.x <= arg(dx) - arg(R) - 1]  [gid.y >= arg(R)]  [gid.y <= arg(dy) - arg(R) - 1]  [gid.z >= arg(R)]  [gid.z <= arg(dz) - arg(R) - 1]
__kernel void builtins(__global const float *in, __global float *out, int w, int h, uint n) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  out[y * w + x] = in[ym * w + xm] + in[yp * w + xp] + in[clamp((uint)x, 1u, n - 2)];
}
__kernel void ternary(__global const float *in, __global float *out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  int xm = x > 0 ? x - 1 : 0, xp = x + 1 < w ? x + 1 : w - 1;
  int ym = y - 1 < 0 ? 0 : y - 1, yp = y + 1 >= h ? h - 1 : y + 1;
  out[y * w + x] = in[ym * w + xm] + in[yp * w + xp];
}
__kernel void interior(__global const float *in, __global float *out, uint dx, uint dy, uint dz, uint R) {
  uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= dx || y >= dy || z >= dz) return;
  uint sxy = dx * dy, idx = z * sxy + y * dx + x;
  if (x < R || x >= dx - R || y < R || y >= dy - R || z < R || z >= dz - R) { out[idx] = in[idx]; return; }
  float v = 0;
  for (uint r = 1; r <= R; ++r) v += in[idx - r * sxy] + in[idx + r * sxy] + in[idx - r];
  out[idx] = v;
}
// Loops left from their header with min/max bounds (not rotated: the builtin
// calls stay in the loop) get trip counts from their exit tests.
// The loop tests bound each recurrence as a whole ([j <= min(...)]), so a
// group's rows are max(y0 - r, 0) .. min(y1 + r, h - 1), not start + count.
// CHECK: kernel boxblur
// CHECK: arg 0 in : global float* access=R range=affine
// CHECK-SAME: {{$}}
// CHECK-NEXT: load 4B @
// CHECK-SAME: [smax(0, grp.x*elsz.x + lid.x + goff.x - arg(r)) + {{i[0-9]}} <= smin(arg(w) - 1, grp.x*elsz.x + lid.x + goff.x + arg(r))]
// CHECK-SAME: [smax(0, grp.y*elsz.y + lid.y + goff.y - arg(r)) + {{i[0-9]}} <= smin(arg(h) - 1, grp.y*elsz.y + lid.y + goff.y + arg(r))]
__kernel void boxblur(__global const float *in, __global float *out, int w, int h, int r) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  float s = 0;
  for (int j = max(y - r, 0); j <= min(y + r, h - 1); ++j)
    for (int i = max(x - r, 0); i <= min(x + r, w - 1); ++i)
      s += in[j * w + i];
  out[y * w + x] = s;
}
// A clamp written as nested ternaries: max(0, min(j, w - 1)), valid where
// 0 <= w - 1 (a fit check the evaluation verifies).
// CHECK: kernel nested
// CHECK: load 4B @ 4*smax(0, smin(grp.x*elsz.x + lid.x + goff.x - arg(r) + {{i[0-9]}}, arg(w) - 1))
__kernel void nested(__global const float *in, __global float *out, int w, int r) {
  int x = get_global_id(0);
  if (x >= w) return;
  float s = 0;
  for (int i = -r; i <= r; ++i) { int j = x + i; j = j < 0 ? 0 : (j >= w ? w - 1 : j); s += in[j]; }
  out[x] = s;
}
