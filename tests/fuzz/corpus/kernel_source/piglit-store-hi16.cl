kernel void store_hi16_global(volatile global ushort* out, volatile global uint* in)
{
    int gid = get_global_id(0);
    uint value = in[gid];
    out[gid] = value >> 16;
}

kernel void store_hi16_local(volatile global ushort* out, volatile global uint* in)
{
    volatile local ushort lds[64];
    int lid = get_local_id(0);
    int gid = get_global_id(0);

    uint value = in[gid];
    lds[lid] = value >> 16;
    out[gid] = lds[lid];
}

kernel void store_hi16_private(volatile global ushort* out, volatile global uint* in)
{
    int gid = get_global_id(0);
    volatile private ushort stack = in[gid] >> 16;
    out[gid] = stack;
}

kernel void truncstorei8_hi16_global(volatile global uchar* out, volatile global uint* in)
{
    int gid = get_global_id(0);
    uint value = in[gid];
    out[gid] = (uchar)(value >> 16);
}

kernel void truncstorei8_hi16_local(volatile global uchar* out, volatile global uint* in)
{
    volatile local ushort lds[64];
    int lid = get_local_id(0);
    int gid = get_global_id(0);

    uint value = in[gid];
    lds[lid] = value >> 16;
    out[gid] = (uchar)lds[lid];
}

kernel void truncstorei8_hi16_private(volatile global uchar* out, volatile global uint* in)
{
    int gid = get_global_id(0);
    volatile private ushort stack = in[gid] >> 16;
    out[gid] = (uchar)stack;
}
