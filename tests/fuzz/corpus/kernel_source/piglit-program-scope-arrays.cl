__constant float arr[] = {
4.0f,
3.0f,
2.0f,
1.0f,
};

__kernel void simple_constant(__global float *out) {
	int i = get_global_id(0);
	out[i] = arr[1];
}

__kernel void given_constant(__global float *out, int c) {
	int i = get_global_id(0);
	out[i] = arr[c];
}

__kernel void simple_gid(__global float *out) {
	int i = get_global_id(0);
	out[i] = arr[i];
}

__kernel void indirection(__global float *out, __global uchar *in) {
	int i = get_global_id(0);
	out[i] = arr[in[i]];
}

__constant char arrc[] = { 4, 3, 2, 1, };

__kernel void simple_constant_char(__global char *out) {
	int i = get_global_id(0);
	out[i] = arrc[1];
}

__kernel void given_constant_char(__global char *out, int c) {
	int i = get_global_id(0);
	out[i] = arrc[c];
}

__kernel void simple_gid_char(__global char *out) {
	int i = get_global_id(0);
	out[i] = arrc[i];
}

__kernel void indirection_char(__global char *out, __global uchar *in) {
	int i = get_global_id(0);
	out[i] = arrc[in[i]];
}

__constant float2 arr2[] = {
{4.0f, 5.0f},
{3.0f, 5.0f},
{2.0f, 5.0f},
{1.0f, 5.0f}
};

__kernel void simple_constant_2(__global float2 *out) {
	int i = get_global_id(0);
	out[i] = arr2[1];
}

__kernel void given_constant_2(__global float2 *out, int c) {
	int i = get_global_id(0);
	out[i] = arr2[c];
}

__kernel void simple_gid_2(__global float2 *out) {
	int i = get_global_id(0);
	out[i] = arr2[i];
}

__kernel void indirection_2(__global float2 *out, __global uchar *in) {
	int i = get_global_id(0);
	out[i] = arr2[in[i]];
}

__constant struct foo {
	float a;
	int b;
} arrs[] = {
	{31.0, 41},
	{32.0, 42},
	{33.0, 43},
	{34.0, 44}
};

__kernel void simple_constant_struct(__global float *outa, __global int *outb) {
	int i = get_global_id(0);
	outa[i] = arrs[1].a;
	outb[i] = arrs[1].b;
}

__kernel void given_constant_struct(__global float *outa, __global int *outb, int c) {
	int i = get_global_id(0);
	outa[i] = arrs[c].a;
	outb[i] = arrs[c].b;
}

__kernel void simple_gid_struct(__global float *outa, __global int *outb) {
	int i = get_global_id(0);
	outa[i] = arrs[i].a;
	outb[i] = arrs[i].b;
}

__kernel void indirection_struct(__global float *outa, __global int *outb, __global uchar *in) {
	int i = get_global_id(0);
	outa[i] = arrs[in[i]].a;
	outb[i] = arrs[in[i]].b;
}
