//fuzz:n
float gamma_2_2_to_linear (float value)
{
  if (value > 0.03928f)
    return native_powr ((value + 0.055f) / 1.055f, 2.4f);
  return value / 12.92f;
}

__kernel void rgb_gamma_u8_to_ragabaf (__global const uchar  * in,
                                       __global       float4 * out)
{
  int gid = get_global_id(0);
  uchar3 in_vc;
  in_vc.x = in[(gid * 3)];
  in_vc.y = in[(gid * 3) + 1];
  in_vc.z = in[(gid * 3) + 2];
  float3 in_v  = convert_float3(in_vc) / 255.0f;
  float4 tmp_v;
  tmp_v = (float4)(gamma_2_2_to_linear(in_v.x),
                   gamma_2_2_to_linear(in_v.y),
                   gamma_2_2_to_linear(in_v.z),
                   1.0f);
  float4 out_v;
  out_v   = tmp_v * tmp_v.w;
  out_v.w = tmp_v.w;
  out[gid] = out_v;
}
