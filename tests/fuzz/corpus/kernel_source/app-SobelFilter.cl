
int isqrt(int v) {
  int m = (int)sqrt((float)v);
  while (m * m > v) --m;
  while ((m + 1) * (m + 1) <= v) ++m;
  return m;
}

__kernel void sobel(__global const uchar4* in, __global uchar4* out,
                    const uint width, const uint height) {
  const int x = (int)get_global_id(0), y = (int)get_global_id(1);
  const int w = (int)width, h = (int)height;
  if (x >= w || y >= h) return;
  const int xm = max(x - 1, 0), xp = min(x + 1, w - 1);
  const int ym = max(y - 1, 0), yp = min(y + 1, h - 1);
  int4 p00 = convert_int4(in[ym * w + xm]), p01 = convert_int4(in[ym * w + x]), p02 = convert_int4(in[ym * w + xp]);
  int4 p10 = convert_int4(in[y * w + xm]),                                       p12 = convert_int4(in[y * w + xp]);
  int4 p20 = convert_int4(in[yp * w + xm]), p21 = convert_int4(in[yp * w + x]), p22 = convert_int4(in[yp * w + xp]);
  int4 gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
  int4 gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
  int4 g2 = gx * gx + gy * gy;
  int4 m = (int4)(isqrt(g2.x), isqrt(g2.y), isqrt(g2.z), isqrt(g2.w)) / 2;
  out[y * w + x] = convert_uchar4_sat(m);
}
