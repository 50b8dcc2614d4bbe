
uchar xtime(uchar x) { return (uchar)((x << 1) ^ ((x & 0x80) ? 0x1b : 0x00)); }

void stageTables(__global const uchar* sboxG, __global const uchar* keysG,
                 __local uchar* sbox, __local uchar* keys) {
  const uint lid = get_local_id(0), lsz = get_local_size(0);
  for (uint i = lid; i < 256; i += lsz) sbox[i] = sboxG[i];
  for (uint i = lid; i < 176; i += lsz) keys[i] = keysG[i];
  barrier(CLK_LOCAL_MEM_FENCE);
}

// State s[r + 4c] (column-major, as the bytes of the block).
__kernel void aesEncrypt(__global const uchar* in, __global uchar* out,
                         __global const uchar* keysG, __global const uchar* sboxG,
                         const uint nBlocks, __local uchar* sbox, __local uchar* keys) {
  stageTables(sboxG, keysG, sbox, keys);
  const uint b = get_global_id(0);
  if (b >= nBlocks) return;
  uchar s[16], t[16];
  for (int i = 0; i < 16; ++i) s[i] = in[b * 16 + i] ^ keys[i];
  for (int round = 1; round <= 10; ++round) {
    for (int c = 0; c < 4; ++c)  // SubBytes + ShiftRows
      for (int r = 0; r < 4; ++r) t[r + 4 * c] = sbox[s[r + 4 * ((c + r) & 3)]];
    if (round < 10) {
      for (int c = 0; c < 4; ++c) {  // MixColumns
        uchar a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];
        s[4 * c + 0] = xtime(a0) ^ (xtime(a1) ^ a1) ^ a2 ^ a3;
        s[4 * c + 1] = a0 ^ xtime(a1) ^ (xtime(a2) ^ a2) ^ a3;
        s[4 * c + 2] = a0 ^ a1 ^ xtime(a2) ^ (xtime(a3) ^ a3);
        s[4 * c + 3] = (xtime(a0) ^ a0) ^ a1 ^ a2 ^ xtime(a3);
      }
    } else {
      for (int i = 0; i < 16; ++i) s[i] = t[i];
    }
    for (int i = 0; i < 16; ++i) s[i] ^= keys[16 * round + i];  // AddRoundKey
  }
  for (int i = 0; i < 16; ++i) out[b * 16 + i] = s[i];
}

__kernel void aesDecrypt(__global const uchar* in, __global uchar* out,
                         __global const uchar* keysG, __global const uchar* invSboxG,
                         const uint nBlocks, __local uchar* invSbox, __local uchar* keys) {
  stageTables(invSboxG, keysG, invSbox, keys);
  const uint b = get_global_id(0);
  if (b >= nBlocks) return;
  uchar s[16], t[16];
  for (int i = 0; i < 16; ++i) s[i] = in[b * 16 + i] ^ keys[160 + i];
  for (int round = 9; round >= 0; --round) {
    for (int c = 0; c < 4; ++c)  // InvShiftRows + InvSubBytes
      for (int r = 0; r < 4; ++r) t[r + 4 * ((c + r) & 3)] = invSbox[s[r + 4 * c]];
    for (int i = 0; i < 16; ++i) t[i] ^= keys[16 * round + i];  // AddRoundKey
    if (round > 0) {
      for (int c = 0; c < 4; ++c) {  // InvMixColumns = MixColumns after a pre-step
        uchar u = xtime(xtime(t[4 * c] ^ t[4 * c + 2]));
        uchar v = xtime(xtime(t[4 * c + 1] ^ t[4 * c + 3]));
        uchar a0 = t[4 * c] ^ u, a1 = t[4 * c + 1] ^ v, a2 = t[4 * c + 2] ^ u, a3 = t[4 * c + 3] ^ v;
        s[4 * c + 0] = xtime(a0) ^ (xtime(a1) ^ a1) ^ a2 ^ a3;
        s[4 * c + 1] = a0 ^ xtime(a1) ^ (xtime(a2) ^ a2) ^ a3;
        s[4 * c + 2] = a0 ^ a1 ^ xtime(a2) ^ (xtime(a3) ^ a3);
        s[4 * c + 3] = (xtime(a0) ^ a0) ^ a1 ^ a2 ^ xtime(a3);
      }
    } else {
      for (int i = 0; i < 16; ++i) s[i] = t[i];
    }
  }
  for (int i = 0; i < 16; ++i) out[b * 16 + i] = s[i];
}
