// OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOThe vector shuffle pattern seems to not match right now on i16, but
// the bitshifts work.
ushort bswap16(ushort src) {
    return (src & 0x00FF) << 8 | (src & 0xFF00) >> 8;
}

// Idiom recogniztion seems to not handle vectors directly, but this
// can vectorize.
ushort2 bswap_v2u16(ushort2 src) {
    return (ushort2)(bswap16(src.x), bswap16(src.y));
}

uint bswap32(uint src) {
    uchar4 vec = as_uchar4(src);
    return as_uint(vec.wzyx);
}

ulong bswap64(ulong src) {
    uchar8 vec = as_uchar8(src);
    return as_ulong(vec.s76543210);
}

kernel void v_bswap_u32(global uint* out, global uint* in) {
    int id = get_global_id(0);
    out[id] = bswap32(in[id]);
}

kernel void s_bswap_u32(global uint* out, constant uint* in) {
  #pragma unroll
  for (int i = 0; i < 65536; ++i)
    out[i] = bswap32(in[i]);
}

kernel void v_bswap_u64(global ulong* out, global ulong* in) {
    int id = get_global_id(0);
    out[id] = bswap64(in[id]);
}

kernel void s_bswap_u64(global ulong* out, constant ulong* in) {
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    out[i] = bswap64(in[i]);
}

kernel void v_bswap_u16(global ushort* out, global ushort* in) {
    int id = get_global_id(0);
    out[id] = bswap16(in[id]);
}

kernel void s_bswap_u16(global ushort* out, constant ushort* in) {
  #pragma unroll
  for (int i = 0; i < 8; ++i)
    out[i] = bswap16(in[i]);
}

kernel void v_bswap_u16_zext32(global uint* out, global ushort* in) {
    int id = get_global_id(0);
    out[id] = (uint)bswap16(in[id]);
}

kernel void v_bswap_v2u16(global ushort2* out, global ushort2* in) {
    int id = get_global_id(0);
    out[id] = bswap_v2u16(in[id]);
}

kernel void s_bswap_v2u16(global ushort2* out, constant ushort2* in) {
  #pragma unroll
  for (int i = 0; i < 8; ++i)
    out[i] = bswap_v2u16(in[i]);
}
