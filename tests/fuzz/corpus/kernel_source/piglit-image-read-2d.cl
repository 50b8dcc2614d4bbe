kernel void readf(global float4 *out, read_only image2d_t img, sampler_t s,
                  int2 coords_i, float2 coords_f) {
	out[0] = read_imagef(img, s, coords_i);
	out[1] = read_imagef(img, s, coords_f);
}

kernel void readi(global int4 *out, read_only image2d_t img, sampler_t s,
                  int2 coords_i, float2 coords_f) {
	out[0] = read_imagei(img, s, coords_i);
	out[1] = read_imagei(img, s, coords_f);
}

kernel void readui(global uint4 *out, read_only image2d_t img, sampler_t s,
                  int2 coords_i, float2 coords_f) {
	out[0] = read_imageui(img, s, coords_i);
	out[1] = read_imageui(img, s, coords_f);
}
