kernel void convert_float8_to_int8_rtz(global int8* out, float8 in){
    *out = convert_int8_rtz(in);
}

kernel void convert_float8_to_int8_rtp(global int8* out, float8 in){
    *out = convert_int8_rtp(in);
}

kernel void convert_float8_to_int8_rtn(global int8* out, float8 in){
    *out = convert_int8_rtn(in);
}

kernel void convert_float8_to_int8_rte(global int8* out, float8 in){
    *out = convert_int8_rte(in);
}

/* 
    According to the following, default for float -> int is truncate:
    http://www.khronos.org/registry/cl/sdk/1.0/docs/man/xhtml/SELECT_ROUNDING_MODE.html 
*/
kernel void convert_float8_to_int8(global int8* out, float8 in){
    *out = convert_int8(in);
}

kernel void int4_as_uint4(global uint4* out, int4 in){
    *out = as_uint4(in);
}

kernel void convert_float4_to_int4_rtz(global int4* out, float4 in){
    *out = convert_int4_rtz(in);
}

kernel void convert_float4_to_int4_rtp(global int4* out, float4 in){
    *out = convert_int4_rtp(in);
}

kernel void convert_float4_to_int4_rtn(global int4* out, float4 in){
    *out = convert_int4_rtn(in);
}

kernel void convert_int4_to_char4_sat_rte(global char4* out, int4 in){
    *out = convert_char4_sat_rte(in);
}

kernel void convert_int4_to_char4_sat(global char4* out, int4 in){
    *out = convert_char4_sat(in);
}

kernel void convert_int_to_int4(global int4* out, int in){
    *out = (int4) in;
}

kernel void convert_char4_int4(global int4* out, char4 in){
    *out = convert_int4(in);
}

kernel void convert_int4_float4(global float4* out, int4 in){
    *out = convert_float4(in);
}
