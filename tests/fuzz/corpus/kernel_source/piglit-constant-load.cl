kernel void constant_load_global_store_1(global int2 *out, constant int *in){
    out[0] = *in;
}

kernel void constant_load_global_store_2(global int2 *out, constant int2 *in){
    out[0] = *in;
}

kernel void constant_load_global_store_4(global int4 *out, constant int4 *in){
    out[0] = *in;
}
