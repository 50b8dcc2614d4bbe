kernel void fill(global int* out) {
	unsigned int pos = get_local_id(0) + 4 * get_local_id(1) + 16 * get_local_id(2);
	unsigned int id = get_global_id(0) + 100*get_global_id(1) + 10000*get_global_id(2);
	unsigned int offset = get_global_offset(0) + 100 * get_global_offset(1) + 10000 * get_global_offset(2);
	out[2*pos] = id;
	out[2*pos+1] = offset;
}

kernel void dynamic(volatile global int *out, int j) {
	out[0] = get_global_offset(j-2);
	out[1] = get_global_offset(j-1);
	out[2] = get_global_offset(j);
	out[3] = get_global_offset(j+1);
	out[4] = get_global_offset(j+2);
}
