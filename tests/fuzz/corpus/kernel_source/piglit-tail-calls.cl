#define NOINLINE __attribute__((noinline))

NOINLINE
int i32_func_i32_i32(int x, int y)
{
    return x / y + 4;
}

NOINLINE
int i32_func_i32_i32_i32(int x, int y, int z)
{
    return x / y + z;
}

// Test a basic tail call
NOINLINE
int tailcall_i32_func_i32_i32(int x, int y)
{
    x += 5;
    y += 10;
    return i32_func_i32_i32(x, y);
}

// Test a basic tail call with more arguments in the callee than
// caller.
NOINLINE
int tailcall_i32_func_i32_i32_extra_arg(int x, int y)
{
    int z = x + y + 1;
    x += 5;
    y += 10;
    return i32_func_i32_i32_i32(x, y, z);
}

// Test a basic tail call with fewere arguments in the callee than
// caller.
NOINLINE
int tailcall_i32_func_i32_i32_i32_fewer_args(int x, int y, int z)
{
    x += 5;
    y += 10;
    return i32_func_i32_i32(x, y + z);
}

kernel void kernel_call_tailcall(global int* output,
                                 global int* input0,
                                 global int* input1)
{
    int id = get_global_id(0);
    output[id] = tailcall_i32_func_i32_i32(input0[id], input1[id]);
}

kernel void kernel_call_tailcall_extra_arg(global int* output,
                                           global int* input0,
                                           global int* input1)
{
    int id = get_global_id(0);
    output[id] = tailcall_i32_func_i32_i32_extra_arg(input0[id], input1[id]);
}

kernel void kernel_call_tailcall_fewer_args(global int* output,
                                            global int* input0,
                                            global int* input1,
                                            global int* input2)
{
    int id = get_global_id(0);
    output[id] = tailcall_i32_func_i32_i32_i32_fewer_args(input0[id], input1[id], input2[id]);
}

NOINLINE
int4 v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_i32(
    int4 arg0, int4 arg1, int4 arg2, int4 arg3,
    int4 arg4, int4 arg5, int4 arg6, int4 arg7,
    int arg8)
{
    // Try to make sure we can't clobber the incoming stack arguments
    // with local stack objects.
    volatile int4 args[8] = { arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7 };
    volatile int scalar_arg = arg8;

    int4 total = 0;
    for (int i = 0; i < 8; ++i)
    {
        total += args[i];
    }

    return total * scalar_arg;
}

// Test a basic tail call
NOINLINE
int4 tailcall_v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_i32(
    int4 arg0, int4 arg1, int4 arg2, int4 arg3,
    int4 arg4, int4 arg5, int4 arg6, int4 arg7,
    int arg8)
{
    arg0 *= 2;
    return v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_i32(
        arg0, arg1, arg2, arg3, arg4,
        arg5, arg6, arg7, arg8);
}

kernel void kernel_call_tailcall_stack_passed_args(global int4* output,
                                                   global int4* input0,
                                                   global int4* input1,
                                                   global int4* input2,
                                                   global int4* input3,
                                                   global int4* input4,
                                                   global int4* input5,
                                                   global int4* input6,
                                                   global int4* input7,
                                                   global int* input8)
{
    int id = get_global_id(0);
    output[id] = tailcall_v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_i32(
        input0[id],
        input1[id],
        input2[id],
        input3[id],
        input4[id],
        input5[id],
        input6[id],
        input7[id],
        input8[id]);
}
