
__kernel void nbody(__global const float4* pos, __global const float4* vel,
                    __global float4* newPos, __global float4* newVel,
                    const uint n, const float dt, const float eps2,
                    __local float4* tile) {
  const uint gid = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  float4 p = gid < n ? pos[gid] : (float4)(0.0f);
  float4 acc = (float4)(0.0f);
  for (uint t = 0; t < n; t += lsz) {
    uint j = t + lid;
    tile[lid] = j < n ? pos[j] : (float4)(0.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < lsz; ++k) {
      float4 q = tile[k];
      float4 r = (float4)(q.xyz - p.xyz, 0.0f);
      float d2 = dot(r, r) + eps2;
      float inv = rsqrt(d2);
      acc += (q.w * inv * inv * inv) * r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (gid < n) {
    float4 v = vel[gid];
    v.xyz += acc.xyz * dt;
    p.xyz += v.xyz * dt;
    newPos[gid] = p;
    newVel[gid] = v;
  }
}
