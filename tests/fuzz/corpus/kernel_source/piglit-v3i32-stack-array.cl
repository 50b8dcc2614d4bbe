kernel void stack_array_indirect_read(global int3* out, global int *in) {
	int3 stack[2];
	stack[0].s0 = 4;
	stack[0].s1 = 5;
	stack[0].s2 = 6;
	stack[1].s0 = 7;
	stack[1].s1 = 8;
	stack[1].s2 = 9;

	out[0] = stack[in[0]];
	out[1] = stack[in[1]];
}

kernel void stack_array_indirect_write(global int3* out, global int *in) {
	int3 stack[2];
	stack[in[0]].s0 = 4;
	stack[in[0]].s1 = 5;
	stack[in[0]].s2 = 6;
	stack[in[1]].s0 = 7;
	stack[in[1]].s1 = 8;
	stack[in[1]].s2 = 9;

	out[0] = stack[0];
	out[1] = stack[1];
}
