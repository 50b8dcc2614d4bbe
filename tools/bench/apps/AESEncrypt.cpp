// AESEncrypt / AESDecrypt (AMD APP SDK "AESEncryptDecrypt" style): AES-128 in
// ECB mode over the bytes of a 24-bit image, one 16-byte block per work-item.
// The S-box (inverse S-box) and the expanded round keys are passed in global
// buffers and staged in local memory by each work-group (barrier) as in the
// SDK.  This file builds AESEncrypt; AESDecrypt.cpp includes it with
// AES_DECRYPT_APP defined.
//   AESEncrypt: timed device encryption of the image; verified exactly against
//     the host AES (itself checked on the FIPS-197 vector), then the device
//     decrypts the ciphertext (untimed) and must give the image back.
//   AESDecrypt: timed device decryption of the host-encrypted image; must give
//     the image back; then the device encrypts it (untimed) and must match the
//     host ciphertext.
// Thesis Table 3.2: 4096 x 4096 BMP image (48 MB), both directions.
#include "common/app.h"

static const char* kSource = R"CLC(
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
)CLC";

namespace {

// ---- host AES-128 reference -------------------------------------------------
uint8_t xt(uint8_t x) { return (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1b : 0)); }
uint8_t gm(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (int i = 0; i < 8; ++i) {
    if (b & 1) p ^= a;
    a = xt(a);
    b >>= 1;
  }
  return p;
}

struct Aes {
  uint8_t sbox[256], inv[256], keys[176];

  explicit Aes(const uint8_t key[16]) {
    // S-box from its definition: multiplicative inverse in GF(2^8), then the
    // affine transform.
    for (int x = 0; x < 256; ++x) {
      uint8_t invx = 0;
      for (int y = 1; y < 256 && x; ++y)
        if (gm((uint8_t)x, (uint8_t)y) == 1) invx = (uint8_t)y;
      uint8_t b = invx, r = invx;
      for (int i = 1; i < 5; ++i) r ^= (uint8_t)((b << i) | (b >> (8 - i)));
      sbox[x] = (uint8_t)(r ^ 0x63);
    }
    for (int x = 0; x < 256; ++x) inv[sbox[x]] = (uint8_t)x;
    std::memcpy(keys, key, 16);
    uint8_t rcon = 1;
    for (int i = 16; i < 176; i += 4) {
      uint8_t t[4] = {keys[i - 4], keys[i - 3], keys[i - 2], keys[i - 1]};
      if (i % 16 == 0) {
        uint8_t t0 = t[0];
        t[0] = (uint8_t)(sbox[t[1]] ^ rcon);
        t[1] = sbox[t[2]];
        t[2] = sbox[t[3]];
        t[3] = sbox[t0];
        rcon = xt(rcon);
      }
      for (int j = 0; j < 4; ++j) keys[i + j] = (uint8_t)(keys[i - 16 + j] ^ t[j]);
    }
  }

  void encrypt(const uint8_t* in, uint8_t* out) const {
    uint8_t s[16], t[16];
    for (int i = 0; i < 16; ++i) s[i] = in[i] ^ keys[i];
    for (int round = 1; round <= 10; ++round) {
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) t[r + 4 * c] = sbox[s[r + 4 * ((c + r) & 3)]];
      if (round < 10) {
        for (int c = 0; c < 4; ++c) {
          uint8_t a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];
          s[4 * c + 0] = xt(a0) ^ (xt(a1) ^ a1) ^ a2 ^ a3;  // {02}a0 ^ {03}a1 ^ a2 ^ a3
          s[4 * c + 1] = a0 ^ xt(a1) ^ (xt(a2) ^ a2) ^ a3;
          s[4 * c + 2] = a0 ^ a1 ^ xt(a2) ^ (xt(a3) ^ a3);
          s[4 * c + 3] = (xt(a0) ^ a0) ^ a1 ^ a2 ^ xt(a3);
        }
      } else {
        std::memcpy(s, t, 16);
      }
      for (int i = 0; i < 16; ++i) s[i] ^= keys[16 * round + i];
    }
    std::memcpy(out, s, 16);
  }
};

}  // namespace

int main(int argc, char** argv) {
#ifdef AES_DECRYPT_APP
  const bool decryptApp = true;
  app::App a("AESDecrypt");
#else
  const bool decryptApp = false;
  app::App a("AESEncrypt");
#endif
  long long w = 0, h = 0;
  a.param("width", &w, "image width (24-bit pixels)", 128, 1024, 4096);
  a.param("height", &h, "image height", 96, 1024, 4096);
  a.parse(argc, argv);
  a.init();

  // Host reference self-test: FIPS-197 Appendix C.1.
  {
    uint8_t key[16], pt[16], ct[16];
    const uint8_t expect[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                                0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
    for (int i = 0; i < 16; ++i) {
      key[i] = (uint8_t)i;
      pt[i] = (uint8_t)(i * 0x11);
    }
    Aes t(key);
    t.encrypt(pt, ct);
    if (std::memcmp(ct, expect, 16) != 0) {
      std::printf("FAIL host AES reference does not match FIPS-197\n");
      return a.finish(false);
    }
  }

  cl_program prog = a.build(kSource);
  cl_kernel kenc = a.kernel(prog, "aesEncrypt");
  cl_kernel kdec = a.kernel(prog, "aesDecrypt");
  const size_t lenc = a.pickLocal1D(kenc, 256), ldec = a.pickLocal1D(kdec, 256);

  const uint8_t key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                           0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
  Aes aes(key);
  const size_t imageBytes = (size_t)w * (size_t)h * 3;
  const size_t nBlocks = app::divUp(imageBytes, 16), bytes = nBlocks * 16;
  std::vector<cl_uchar> plain(bytes, 0), cipher(bytes), got(bytes), back(bytes);
  app::Rng rng(71);
  for (size_t y = 0; y < (size_t)h; ++y)  // a synthetic 24-bit picture: gradients + noise
    for (size_t x = 0; x < (size_t)w; ++x)
      for (int c = 0; c < 3; ++c)
        plain[(y * w + x) * 3 + c] = (cl_uchar)(x * (c + 1) + y * (3 - c) + (rng.next32() & 15));
  for (size_t b = 0; b < nBlocks; ++b) aes.encrypt(&plain[b * 16], &cipher[b * 16]);

  const cl_uchar* input = decryptApp ? cipher.data() : plain.data();
  cl_kernel ktimed = decryptApp ? kdec : kenc, kcheck = decryptApp ? kenc : kdec;
  size_t ltimed = decryptApp ? ldec : lenc, lcheck = decryptApp ? lenc : ldec;

  a.startWall();
  cl_mem din = a.buffer(CL_MEM_READ_ONLY, bytes);
  cl_mem dout = a.buffer(CL_MEM_READ_WRITE, bytes);
  cl_mem dkeys = a.buffer(CL_MEM_READ_ONLY, 176);
  cl_mem dsbox = a.buffer(CL_MEM_READ_ONLY, 256);
  cl_mem dinv = a.buffer(CL_MEM_READ_ONLY, 256);
  a.write(din, bytes, input);
  a.write(dkeys, 176, aes.keys);
  a.write(dsbox, 256, aes.sbox);
  a.write(dinv, 256, aes.inv);
  a.setArgs(kenc, din, dout, dkeys, dsbox, (cl_uint)nBlocks, app::Local(256), app::Local(176));
  a.setArgs(kdec, din, dout, dkeys, dinv, (cl_uint)nBlocks, app::Local(256), app::Local(176));
  for (int r = 0; r < a.repeat(); ++r) a.run1D(ktimed, app::roundUp(nBlocks, ltimed), ltimed);
  a.read(dout, bytes, got.data());
  a.stopWall();

  bool ok = decryptApp ? a.compareExact("decrypt", got.data(), plain.data(), bytes)
                       : a.compareExact("encrypt", got.data(), cipher.data(), bytes);

  // Other direction (untimed, not in kernel_ms): dout -> din.
  cl_mem dback = a.buffer(CL_MEM_WRITE_ONLY, bytes);
  a.setArg(kcheck, 0, dout);
  a.setArg(kcheck, 1, dback);
  size_t g = app::roundUp(nBlocks, lcheck);
  CHECK(clEnqueueNDRangeKernel(a.queue, kcheck, 1, nullptr, &g, &lcheck, 0, nullptr, nullptr));
  a.read(dback, bytes, back.data());
  ok = (decryptApp ? a.compareExact("encrypt(decrypt(x))", back.data(), cipher.data(), bytes)
                   : a.compareExact("decrypt(encrypt(x))", back.data(), plain.data(), bytes)) &&
       ok;
  return a.finish(ok);
}
