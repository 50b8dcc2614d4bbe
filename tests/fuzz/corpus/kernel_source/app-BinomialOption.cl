
#define RISKFREE 0.02f
#define VOLATILITY 0.30f

__kernel void binomialOptions(const int numSteps, __global const float4* randArray,
                              __global float4* output, __local float4* callA,
                              __local float4* callB) {
  const int tid = (int)get_local_id(0);
  const int bid = (int)get_group_id(0);
  float4 inRand = randArray[bid];
  float4 s = (1.0f - inRand) * 5.0f + inRand * 30.0f;
  float4 x = (1.0f - inRand) * 1.0f + inRand * 100.0f;
  float4 optionYears = (1.0f - inRand) * 0.25f + inRand * 10.0f;
  float4 dt = optionYears * (1.0f / (float)numSteps);
  float4 vsdt = VOLATILITY * sqrt(dt);
  float4 rdt = RISKFREE * dt;
  float4 r = exp(rdt);
  float4 rInv = 1.0f / r;
  float4 u = exp(vsdt);
  float4 d = 1.0f / u;
  float4 pu = (r - d) / (u - d);
  float4 pd = 1.0f - pu;
  float4 puByr = pu * rInv;
  float4 pdByr = pd * rInv;

  float4 profit = s * exp(vsdt * (2.0f * (float)tid - (float)numSteps)) - x;
  callA[tid] = fmax(profit, (float4)(0.0f));
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int j = numSteps; j > 0; j -= 2) {
    if (tid < j) callB[tid] = puByr * callA[tid + 1] + pdByr * callA[tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < j - 1) callA[tid] = puByr * callB[tid + 1] + pdByr * callB[tid];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) output[bid] = callA[0];
}
