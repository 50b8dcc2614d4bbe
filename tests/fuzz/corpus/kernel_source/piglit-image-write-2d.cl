kernel void writef(write_only image2d_t img, global float4 *colors) {
	const int i = get_global_id(0);
	const int j = get_global_id(1);
	const int k = i + j * get_image_width(img);
	int2 coord = (int2)(i, j);
	write_imagef(img, coord, colors[k]);
}

kernel void writei(write_only image2d_t img, global int4 *colors) {
	const int i = get_global_id(0);
	const int j = get_global_id(1);
	const int k = i + j * get_image_width(img);
	int2 coord = (int2)(i, j);
	write_imagei(img, coord, colors[k]);
}

kernel void writeui(write_only image2d_t img, global uint4 *colors) {
	const int i = get_global_id(0);
	const int j = get_global_id(1);
	const int k = i + j * get_image_width(img);
	int2 coord = (int2)(i, j);
	write_imageui(img, coord, colors[k]);
}
