kernel void fill(global int* out) {
	unsigned int id = get_global_id(0) + 4*get_global_id(1) + 16*get_global_id(2);
	out[id] = id;
}
