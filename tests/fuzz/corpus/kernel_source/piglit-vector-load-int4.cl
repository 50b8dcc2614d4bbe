kernel void vecload(global int* out, int4 vec) {
	out[0] = vec.s0;
	out[1] = vec.s1;
	out[2] = vec.s2;
	out[3] = vec.s3;

	out[4] = vec.x;
	out[5] = vec.y;
	out[6] = vec.z;
	out[7] = vec.w;
}
