kernel void test_bitselect(global int *out, int x, int y, int z)
{
	*out = bitselect(x,y,z);
}
