kernel void comma(global int* out) {
	out[0] = (0, 0, 1);
	out[1] = 1, 0, 0;
	out[3] = (out[2] = 1, 1);
	out[5] = out[4] = 1, 0;
}
