kernel void Ch(global uint *out, uint x, uint y, uint z)
{
	// There are several ways to implement this, but this is a commonly used
	// optimized version of it.
	out[0] = (z ^ (x & (y ^ z)));
}
