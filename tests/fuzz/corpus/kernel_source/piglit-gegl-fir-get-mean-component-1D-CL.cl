kernel void fir_get_mean_component_1D_CL(global float4 *out,
                                    const global float4 *buf,
                                    int offset,
                                    const int delta_offset,
                                    constant float *cmatrix,
                                    const int matrix_length)
{
    float4 acc = 0.0f;
    int i;

    for(i=0; i<matrix_length; i++)
      {
        acc    += buf[offset] * cmatrix[i];
        offset += delta_offset;
      }
    out[0] = acc;
}
