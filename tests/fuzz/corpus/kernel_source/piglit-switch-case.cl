__kernel void switch_case(__global int *out)
{
	switch (get_global_id(0)) {
		case 0: out[get_global_id(0)] = get_global_id(0) + 4;
			break;
		case 1: out[get_global_id(0)] = get_global_id(0) + 14;
			break;
		case 2: out[get_global_id(0)] = get_global_id(0) + 13;
			break;
		case 6: out[get_global_id(0)] = get_global_id(0) + 11;
			break;
		case 7: out[get_global_id(0)] = get_global_id(0) + 10;
			break;
		case 10: out[get_global_id(0)] = get_global_id(0) + 9;
			 break;
		case 12: out[get_global_id(0)] = get_global_id(0) + 6;
			 break;
		default: out[get_global_id(0)] = get_global_id(0) + 8;
			 break;
	}
}

