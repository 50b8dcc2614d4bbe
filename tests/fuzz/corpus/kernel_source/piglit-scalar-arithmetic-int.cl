kernel void add(global int* out, int a, int b) {
	out[0] = a + b;
}

kernel void sub(global int* out, int a, int b) {
	out[0] = a - b;
}

kernel void mul(global int* out, int a, int b) {
	out[0] = a * b;
}

kernel void div(global int* out, int a, int b) {
	out[0] = a / b;
}

kernel void sdiv24(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = ((a[id] << 8) >> 8) / ((b[id] << 8) >> 8);
}

kernel void srem24(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = ((a[id] << 8) >> 8) % ((b[id] << 8) >> 8);
}

kernel void sdiv25(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = ((a[id] << 7) >> 7) / ((b[id] << 7) >> 7);
}

kernel void srem25(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = ((a[id] << 7) >> 7) % ((b[id] << 7) >> 7);
}

kernel void sdiv25_1(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = (a[id] >> 7) / ((b[id] << 7) >> 7);
}

kernel void sdiv26(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = ((a[id] << 6) >> 6) / ((b[id] << 6) >> 6);
}

kernel void srem25_1(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = ((a[id] << 7) >> 7) % (b[id] >> 7);
}

kernel void srem25_2(global int* out, global int* a, global int* b) {
	int id = get_global_id(0);
	out[id] = (-((a[id] << 7) >> 7)) % ((b[id] << 7) >> 7);
}

kernel void mod(global int* out, int a, int b) {
	out[0] = a % b;
}

kernel void plus(global int* out, int in) {
	out[0] = +in;
}

kernel void minus(global int* out, int in) {
	out[0] = -in;
}

kernel void postinc(global int* out, int in) {
	out[0] = in++;
}

kernel void preinc(global int* out, int in) {
	out[0] = ++in;
}

kernel void postdec(global int* out, int in) {
	out[0] = in--;
}

kernel void predec(global int* out, int in) {
	out[0] = --in;
}
