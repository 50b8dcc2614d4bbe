kernel void readf_f_x(global float *out, read_only image2d_t img, sampler_t s,
                      global float2 *coords) {
	int i = get_global_id(0);
	out[i] = read_imagef(img, s, coords[i]).x;
}
