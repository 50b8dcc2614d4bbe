kernel void global_store(global int4* out, global int4* in) {
	out[0] = in[0];
	out[1] = in[1];
}
