kernel void loop_ge(global int* out, int iterations) {
	int i;
	int ai = 0;
	for (i = iterations - 1; i >= 0; i--) {
		out[ai] = i;
		ai = ai+1;
	}
}

kernel void loop_gt(global int* out, int iterations) {
	int i;
	int ai = 0;
	for (i = iterations - 1; i > -1; i--) {
		out[ai] = i;
		ai = ai+1;
	}
}

kernel void loop_le(global int* out, int iterations) {
	int i;
	int ai = 0;
	for (i = 0; i <= (iterations - 1); i++) {
		out[ai] = i;
		ai = ai+1;
	}
}

kernel void loop_lt(global int* out, int iterations) {
	int i;
	int ai = 0;
	for (i = 0; i < iterations; i++) {
		out[ai] = i;
		ai = ai+1;
	}
}
