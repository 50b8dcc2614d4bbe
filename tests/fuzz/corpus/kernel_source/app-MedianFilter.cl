
#define OP(a, b) { uint4 t_ = min(a, b); b = max(a, b); a = t_; }

__kernel void median3x3(__global const uchar4* in, __global uchar4* out,
                        const uint width, const uint height) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  const int w = (int)width, h = (int)height;
  if (x >= w || y >= h) return;
  const int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  const int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  uint4 p0 = convert_uint4(in[ym * w + xm]), p1 = convert_uint4(in[ym * w + x]), p2 = convert_uint4(in[ym * w + xp]);
  uint4 p3 = convert_uint4(in[y * w + xm]),  p4 = convert_uint4(in[y * w + x]),  p5 = convert_uint4(in[y * w + xp]);
  uint4 p6 = convert_uint4(in[yp * w + xm]), p7 = convert_uint4(in[yp * w + x]), p8 = convert_uint4(in[yp * w + xp]);
  OP(p1, p2); OP(p4, p5); OP(p7, p8); OP(p0, p1); OP(p3, p4); OP(p6, p7);
  OP(p1, p2); OP(p4, p5); OP(p7, p8); OP(p0, p3); OP(p5, p8); OP(p4, p7);
  OP(p3, p6); OP(p1, p4); OP(p2, p5); OP(p4, p7); OP(p4, p2); OP(p6, p4);
  OP(p4, p2);
  out[y * w + x] = convert_uchar4(p4);
}
