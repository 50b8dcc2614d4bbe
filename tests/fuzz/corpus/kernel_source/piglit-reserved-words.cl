kernel void and(global int* out, int in){
    out[0] = in * 1;
}

kernel void and_eq(global int* out, int in){
    out[0] = in * 2;
}

kernel void bitand(global int* out, int in){
    out[0] = in * 3;
}

kernel void bitor(global int* out, int in){
    out[0] = in * 4;
}

kernel void compl(global int* out, int in){
    out[0] = in * 5;
}

kernel void not(global int* out, int in){
    out[0] = in * 6;
}

kernel void not_eq(global int* out, int in){
    out[0] = in * 7;
}

kernel void or(global int* out, int in){
    out[0] = in * 8;
}

kernel void or_eq(global int* out, int in){
    out[0] = in * 9;
}

kernel void xor(global int* out, int in){
    out[0] = in * 10;
}

kernel void xor_eq(global int* out, int in){
    out[0] = in * 11;
}
