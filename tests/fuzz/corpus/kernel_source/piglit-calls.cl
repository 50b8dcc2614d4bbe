// The inline asm is necessary to defeat interprocedural sparse
// conditional constant propagation eliminating some of the trivial
// calls.
#ifdef __AMDGCN__
#define USE_ASM 1
#define USE_ASM_LS 1
#endif

// kabini don't have this one
#ifdef __gfx703__
#define USE_ASM_LS 0
#endif

#define NOINLINE __attribute__((noinline))

NOINLINE
void void_func_void(void)
{
#if USE_ASM
  __asm("");
#endif
}

kernel void call_void_func_void(__global int* ret)
{
  void_func_void();
  *ret = 12345;
}

NOINLINE
int i32_func_void(void)
{
    int ret;
#if USE_ASM
    __asm("v_mov_b32 %0, 0x12345" : "=v"(ret));
#else
    ret = 0x12345;
#endif

    return ret;
}

kernel void call_i32_func_void(__global int* ret)
{
    *ret = i32_func_void();
}

NOINLINE
long i64_func_void(void)
{
    long ret;
#if USE_ASM_LS
    __asm("v_lshlrev_b64 %0, 44, 1" : "=v"(ret));
#else
    ret = 1ul << 44;
#endif
    return ret;
}

kernel void call_i64_func_void(__global long* ret)
{
    *ret = i64_func_void();
}


NOINLINE
int i32_func_void_callee_stack(void)
{
    int ret;
#if USE_ASM
    __asm("v_mov_b32 %0, 0x64" : "=v"(ret));
#else
    ret = 0x64;
#endif

    volatile int alloca[20];

    for (int i = 0; i < 20; ++i)
    {
        alloca[i] = i;
    }

    for (int i = 0; i < 20; ++i)
    {
        ret += alloca[i];
    }

    return ret;
}

kernel void call_i32_func_void_callee_stack(__global int* ret)
{
    volatile int alloca[10];

    for (int i = 0; i < 10; ++i)
    {
        alloca[i] = 0xffff;
    }


    *ret = i32_func_void_callee_stack();
}

NOINLINE
int i32_func_p0i32_i32_caller_stack(volatile int* stack, int n)
{
    int ret;
#if USE_ASM
    __asm("v_mov_b32 %0, 0x64" : "=v"(ret));
#else
    ret = 0x64;
#endif

    for (int i = 0; i < n; ++i)
    {
        ret += stack[i];
    }

    return ret;
}

kernel void call_i32_func_p0i32_i32_caller_stack(__global int* ret)
{
    volatile int alloca[10];

    for (int i = 0; i < 10; ++i)
    {
        alloca[i] = 3 + i;
    }

    *ret = i32_func_p0i32_i32_caller_stack(alloca, 10);
}

NOINLINE
int i32_func_p0i32_i32_indirect_stack(volatile int* stack, int n)
{
    int ret;
#if USE_ASM
    __asm("v_mov_b32 %0, 0x64" : "=v"(ret));
#else
    ret = 0x64;
#endif
    for (int i = 0; i < n; ++i)
    {
        ret += stack[i];
    }

    return ret;
}

// Access a stack object in the parent kernel's frame.
NOINLINE
int i32_func_p0i32_i32_pass_kernel_stack(volatile int* stack, int n)
{
    int ret;
#if USE_ASM
    __asm("v_mov_b32 %0, 0x42" : "=v"(ret));
#else
    ret = 0x42;
#endif

    volatile int local_object[10];
    for (int i = 0; i < 10; ++i)
        local_object[i] = -1;

    ret += i32_func_p0i32_i32_indirect_stack(stack, n);

    return ret;
}

kernel void call_i32_func_p0i32_i32_indirect_kernel_stack(volatile __global int* ret)
{
    volatile int alloca[10];

    for (int i = 0; i < 10; ++i)
    {
        alloca[i] = 3 + i;
    }

    *ret = i32_func_p0i32_i32_pass_kernel_stack(alloca, 10);
}

// Access a stack object in a parent non-kernel function's stack frame.
NOINLINE
int i32_func_void_pass_function_stack()
{
    int ret;
#if USE_ASM
    __asm("v_mov_b32 %0, 0x42" : "=v"(ret));
#else
    ret = 0x42;
#endif

    volatile int local_object[10];
    for (int i = 0; i < 10; ++i)
        local_object[i] = 8 + i;

    ret += i32_func_p0i32_i32_indirect_stack(local_object, 10);
    return ret;
}

kernel void call_i32_func_p0i32_i32_indirect_function_stack(__global int* ret)
{
  *ret = i32_func_void_pass_function_stack();
}

NOINLINE
int4 v4i32_func_v4i32_v4i32_stack(int4 arg0, int4 arg1)
{
    // Force stack usage.
    volatile int4 args[8] = { arg0, arg1 };

    int4 total = 0;
    for (int i = 0; i < 8; ++i)
    {
        total += args[i];
    }

    return total;
}

// Make sure using stack in a callee function from a callee function
// doesn't corrupt caller's stack objects.
NOINLINE
int4 nested_stack_usage_v4i32_func_v4i32_v4i32(int4 arg0, int4 arg1)
{
    volatile int stack_object[4];
    for (int i = 0; i < 4; ++i) {
        const int test_val = 0x04030200 | i;
        stack_object[i] = test_val;
    }

    arg0 *= 2;

    int4 result = v4i32_func_v4i32_v4i32_stack(arg0, arg1);

    // Check for stack corruption
    for (int i = 0; i < 4; ++i)
    {
        const int test_val = 0x04030200 | i;
        if (stack_object[i] != test_val)
            result = -1;
    }

    return result;
}

kernel void kernel_call_nested_stack_usage(global int4* output,
                                           global int4* input0,
                                           global int4* input1)
{
    int id = get_global_id(0);
    output[id] = nested_stack_usage_v4i32_func_v4i32_v4i32(
        input0[id],
        input1[id]);
}

NOINLINE
int func_div_add(int x, int y)
{
    return x / y + 4;
}

NOINLINE
int call_i32_func_i32_i32(int x, int y, volatile int* ptr)
{
    int tmp = func_div_add(x, y) >> 2;
    return tmp + *ptr;
}

kernel void kernel_nested_calls(global int* output,
                                global int* input0,
                                global int* input1)
{
    int id = get_global_id(0);
    volatile int zero = 0;
    output[id] = call_i32_func_i32_i32(input0[id], input1[id], &zero);
}

NOINLINE
int4 v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32(
    int4 arg0, int4 arg1, int4 arg2, int4 arg3,
    int4 arg4, int4 arg5, int4 arg6, int4 arg7,
    int4 arg8)
{
    // Try to make sure we can't clobber the incoming stack arguments
    // with local stack objects.
    volatile int4 args[8] = { arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7 };
    volatile int4 last_arg = arg8;

    int4 total = 0;
    for (int i = 0; i < 8; ++i)
    {
        total += args[i];
    }

    return total * last_arg;
}

 // Test argument passed on stack, but doesn't use byval.
NOINLINE
int4 stack_arg_v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32(
    int4 arg0, int4 arg1, int4 arg2, int4 arg3,
    int4 arg4, int4 arg5, int4 arg6, int4 arg7,
    int4 arg8)
{
    volatile int stack_object[8];
    for (int i = 0; i < 8; ++i) {
        const int test_val = 0x04030200 | i;
        stack_object[i] = test_val;
    }

    arg0 *= 2;

    int4 result = v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32(
        arg0, arg1, arg2, arg3, arg4,
        arg5, arg6, arg7, arg8);

    // Check for stack corruption.
    for (int i = 0; i < 8; ++i)
    {
        const int test_val = 0x04030200 | i;
        if (stack_object[i] != test_val)
            result = -1;
    }

    return result;
}

kernel void kernel_call_stack_arg(global int4* output,
                                  global int4* input0,
                                  global int4* input1,
                                  global int4* input2,
                                  global int4* input3,
                                  global int4* input4,
                                  global int4* input5,
                                  global int4* input6,
                                  global int4* input7,
                                  global int4* input8)
{
    int id = get_global_id(0);

    volatile int stack_object[8];
    for (int i = 0; i < 8; ++i) {
        const int test_val = 0x05060700 | i;
        stack_object[i] = test_val;
    }

    output[id] = stack_arg_v4i32_func_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32_v4i32(
        input0[id],
        input1[id],
        input2[id],
        input3[id],
        input4[id],
        input5[id],
        input6[id],
        input7[id],
        input8[id]);

    // Check for stack corruption.
    for (int i = 0; i < 8; ++i)
    {
        const int test_val = 0x05060700 | i;
        if (stack_object[i] != test_val)
            output[id] = -1;
    }

}
