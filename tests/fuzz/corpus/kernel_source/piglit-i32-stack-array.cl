kernel void stack_array_read(global int* out, global int *in) {

	int stack[5];
	stack[0] = 4;
	stack[1] = 5;
	stack[2] = 6;
	stack[3] = 7;
	stack[4] = 8;
	out[0] = stack[in[0]];
	out[1] = stack[in[1]];
	out[2] = stack[in[2]];
	out[3] = stack[in[3]];
	out[4] = stack[in[4]];
}

kernel void stack_array_write(global int* out, global int *in) {

	int stack[5];
	stack[in[0]] = 4;
	stack[in[1]] = 5;
	stack[in[2]] = 6;
	stack[in[3]] = 7;
	stack[in[4]] = 8;

	out[0] = stack[0];
	out[1] = stack[1];
	out[2] = stack[2];
	out[3] = stack[3];
	out[4] = stack[4];
}

kernel void stack_array_write_read(global int *out, global int *in) {

	int stack[5];
	stack[in[0]] = 4;
	stack[in[1]] = 5;
	stack[in[2]] = 6;
	stack[in[3]] = 7;
	stack[in[4]] = 8;

	out[0] = stack[in[5]];
	out[1] = stack[in[6]];
	out[2] = stack[in[7]];
	out[3] = stack[in[8]];
	out[4] = stack[in[9]];

}

kernel void stack_array_write_if_else_read(global int *out, global int *in) {

	int stack[5];
	if (in[0] == 1) {
		stack[0] = 4;
		stack[1] = 5;
		stack[2] = 6;
		stack[3] = 7;
		stack[4] = 8;
	} else {
		stack[0] = stack[1] = stack[2] = stack[3] = stack[4] = 0;
	}

	out[0] = stack[0];
	out[1] = stack[1];
	out[2] = stack[2];
	out[3] = stack[3];
	out[4] = stack[4];
}

kernel void stack_array_write_if_else_indirect_read(global int *out, global int *in) {

	int stack[5];
	if (in[0] == 1) {
		stack[0] = 4;
		stack[1] = 5;
		stack[2] = 6;
		stack[3] = 7;
		stack[4] = 8;
	} else {
		stack[0] = stack[1] = stack[2] = stack[3] = stack[4] = 0;
	}

	out[0] = stack[in[1]];
	out[1] = stack[in[2]];
	out[2] = stack[in[3]];
	out[3] = stack[in[4]];
	out[4] = stack[in[5]];
}

kernel void stack_array_indirect_write_if_else_read(global int *out, global int *in) {

	int stack[5];
	if (in[0] == 1) {
		stack[in[1]] = 4;
		stack[in[2]] = 5;
		stack[in[3]] = 6;
		stack[in[4]] = 7;
		stack[in[5]] = 8;
	} else {
		stack[in[1]] = 9;
		stack[in[2]] = 10;
		stack[in[3]] = 11;
		stack[in[4]] = 12;
		stack[in[5]] = 13;
	}

	out[0] = stack[0];
	out[1] = stack[1];
	out[2] = stack[2];
	out[3] = stack[3];
	out[4] = stack[4];
}

kernel void stack_array_indirect_write_if_else_indirect_read(global int *out, global int *in) {
	int stack[5];
	if (in[0] == 1) {
		stack[in[1]] = 4;
		stack[in[2]] = 5;
		stack[in[3]] = 6;
		stack[in[4]] = 7;
		stack[in[5]] = 8;
	} else {
		stack[in[1]] = 9;
		stack[in[2]] = 10;
		stack[in[3]] = 11;
		stack[in[4]] = 12;
		stack[in[5]] = 13;
	}

	out[0] = stack[in[6]];
	out[1] = stack[in[7]];
	out[2] = stack[in[8]];
	out[3] = stack[in[9]];
	out[4] = stack[in[10]];
}
