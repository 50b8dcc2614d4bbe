// test_image.cpp - images: formats, 1-D/2-D/3-D read/write/copy/fill/map, kernels.
// Every test skips when the device has no image support.
#include "fixture.h"

#include <algorithm>

using namespace api;

namespace {

class Image : public ClTest {
 protected:
  void SetUp() override {
    ClTest::SetUp();
    if (HasFatalFailure()) return;
    if (!deviceInfo<cl_bool>(device, CL_DEVICE_IMAGE_SUPPORT))
      GTEST_SKIP() << "CL_DEVICE_IMAGE_SUPPORT is CL_FALSE";
  }

  cl_mem image(cl_mem_object_type type, size_t w, size_t h = 1, size_t d = 1,
               cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8},
               cl_mem_flags flags = CL_MEM_READ_WRITE, void *host = nullptr, size_t rowPitch = 0,
               size_t arraySize = 0, cl_mem buffer = nullptr) {
    cl_image_desc desc{};
    desc.image_type = type;
    desc.image_width = w;
    desc.image_height = h;
    desc.image_depth = d;
    desc.image_array_size = arraySize;
    desc.image_row_pitch = rowPitch;
    desc.buffer = buffer;
    cl_int err;
    cl_mem m = clCreateImage(ctx, flags, &fmt, &desc, host, &err);
    EXPECT_CL_OK(err);
    if (m) track(m);
    return m;
  }
};

template <class T>
T imageInfo(cl_mem m, cl_image_info p) {
  T v{};
  clGetImageInfo(m, p, sizeof v, &v, nullptr);
  return v;
}

bool hasFormat(const std::vector<cl_image_format> &v, cl_channel_order o, cl_channel_type t) {
  for (auto &f : v)
    if (f.image_channel_order == o && f.image_channel_data_type == t) return true;
  return false;
}

}  // namespace

TEST_F(Image, SupportedFormats) {
  // The minimum format list applies to every image type, 1-D buffer images included.
  for (cl_mem_object_type t : std::initializer_list<cl_mem_object_type>{
           CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D, CL_MEM_OBJECT_IMAGE1D,
           CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE1D_BUFFER}) {
    SCOPED_TRACE(t);
    cl_uint n = 0;
    ASSERT_CL_OK(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, t, 0, nullptr, &n));
    EXPECT_GT(n, 0u);
    if (n == 0) continue;
    std::vector<cl_image_format> f(n);
    ASSERT_CL_OK(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, t, n, f.data(), nullptr));
    // Minimum list (OpenCL 3.0, read-only images).
    EXPECT_TRUE(hasFormat(f, CL_RGBA, CL_UNORM_INT8));
    EXPECT_TRUE(hasFormat(f, CL_RGBA, CL_UNSIGNED_INT8));
    EXPECT_TRUE(hasFormat(f, CL_RGBA, CL_FLOAT));
    EXPECT_TRUE(hasFormat(f, CL_R, CL_FLOAT));
  }
  cl_image_format f;
  cl_uint n;
  EXPECT_CL(CL_INVALID_VALUE,
            clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 0, &f, &n));
  EXPECT_CL(CL_INVALID_VALUE,
            clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER, 1, &f, &n));
  if (isTutti())  // PoCL 3.1 does not check conflicting flags here
    EXPECT_CL(CL_INVALID_VALUE, clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                                           CL_MEM_OBJECT_IMAGE2D, 1, &f, &n));
  EXPECT_CL(CL_INVALID_CONTEXT, clGetSupportedImageFormats(nullptr, CL_MEM_READ_ONLY,
                                                           CL_MEM_OBJECT_IMAGE2D, 1, &f, &n));
}

TEST_F(Image, Image2DWriteReadAndInfo) {
  const size_t w = 33, h = 17;
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  ASSERT_NE(img, nullptr);
  std::vector<unsigned char> src(w * h * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i * 13 + 1);
  size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, img, CL_TRUE, origin, region, 0, 0, src.data(), 0,
                                   nullptr, nullptr));
  std::vector<unsigned char> out(src.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, origin, region, 0, 0, out.data(), 0,
                                  nullptr, nullptr));
  EXPECT_EQ(out, src);
  // Sub-region read with an explicit (padded) row pitch.
  size_t o2[3] = {3, 5, 0}, r2[3] = {10, 4, 1};
  size_t pitch = 10 * 4 + 8;
  std::vector<unsigned char> part(pitch * 4, 0);
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o2, r2, pitch, 0, part.data(), 0, nullptr,
                                  nullptr));
  for (size_t y = 0; y < 4; ++y)
    for (size_t x = 0; x < 40; ++x)
      ASSERT_EQ(part[y * pitch + x], src[((y + 5) * w + 3) * 4 + x]) << x << "," << y;
  // Info.
  cl_image_format fmt = imageInfo<cl_image_format>(img, CL_IMAGE_FORMAT);
  EXPECT_EQ(fmt.image_channel_order, (cl_channel_order)CL_RGBA);
  EXPECT_EQ(fmt.image_channel_data_type, (cl_channel_type)CL_UNSIGNED_INT8);
  EXPECT_EQ(imageInfo<size_t>(img, CL_IMAGE_ELEMENT_SIZE), 4u);
  EXPECT_EQ(imageInfo<size_t>(img, CL_IMAGE_WIDTH), w);
  EXPECT_EQ(imageInfo<size_t>(img, CL_IMAGE_HEIGHT), h);
  EXPECT_EQ(imageInfo<size_t>(img, CL_IMAGE_DEPTH), 0u);
  EXPECT_EQ(imageInfo<size_t>(img, CL_IMAGE_ARRAY_SIZE), 0u);
  EXPECT_EQ(imageInfo<cl_uint>(img, CL_IMAGE_NUM_MIP_LEVELS), 0u);
  EXPECT_EQ(imageInfo<cl_uint>(img, CL_IMAGE_NUM_SAMPLES), 0u);
  EXPECT_EQ(imageInfo<cl_mem>(img, CL_IMAGE_BUFFER), nullptr);
  EXPECT_GE(imageInfo<size_t>(img, CL_IMAGE_ROW_PITCH), w * 4);
  cl_mem_object_type t = 0;
  ASSERT_CL_OK(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof t, &t, nullptr));
  EXPECT_EQ(t, (cl_mem_object_type)CL_MEM_OBJECT_IMAGE2D);
  char buf[4];
  EXPECT_CL(CL_INVALID_VALUE, clGetImageInfo(img, CL_IMAGE_WIDTH, 1, buf, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clGetImageInfo(img, 0x7777, sizeof buf, buf, nullptr));
}

TEST_F(Image, Image2DFromHostPtrWithRowPitch) {
  const size_t w = 8, h = 6, pitch = 8 * 4 + 16;
  std::vector<unsigned char> host(pitch * h, 0);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w * 4; ++x) host[y * pitch + x] = (unsigned char)(y * 40 + x);
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, w, h, 1, {CL_RGBA, CL_UNSIGNED_INT8},
                     CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host.data(), pitch);
  ASSERT_NE(img, nullptr);
  std::vector<unsigned char> out(w * h * 4);
  size_t o[3] = {0, 0, 0}, r[3] = {w, h, 1};
  ASSERT_CL_OK(
      clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w * 4; ++x) ASSERT_EQ(out[y * w * 4 + x], host[y * pitch + x]);
  if (!isTutti()) return;  // PoCL 3.1 does not validate image_row_pitch
  // Bad row pitch: smaller than width * element size.
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_row_pitch = 4;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc, host.data(),
                          &err),
            nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_DESCRIPTOR, err);
  // Row pitch without a host pointer is invalid too.
  desc.image_row_pitch = pitch;
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_ONLY, &fmt, &desc, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_DESCRIPTOR, err);
}

TEST_F(Image, Image3DWriteRead) {
  const size_t w = 9, h = 7, d = 5;
  cl_mem img = image(CL_MEM_OBJECT_IMAGE3D, w, h, d, {CL_RGBA, CL_FLOAT});
  ASSERT_NE(img, nullptr);
  std::vector<float> src(w * h * d * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (float)i * 0.5f;
  size_t o[3] = {0, 0, 0}, r[3] = {w, h, d};
  ASSERT_CL_OK(
      clEnqueueWriteImage(queue, img, CL_TRUE, o, r, 0, 0, src.data(), 0, nullptr, nullptr));
  std::vector<float> out(src.size());
  ASSERT_CL_OK(
      clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, src);
  EXPECT_EQ(imageInfo<size_t>(img, CL_IMAGE_DEPTH), d);
  EXPECT_GE(imageInfo<size_t>(img, CL_IMAGE_SLICE_PITCH), w * h * 16);
  // Sub-box read.
  size_t o2[3] = {1, 2, 3}, r2[3] = {4, 3, 2};
  std::vector<float> box(4 * 3 * 2 * 4);
  ASSERT_CL_OK(
      clEnqueueReadImage(queue, img, CL_TRUE, o2, r2, 0, 0, box.data(), 0, nullptr, nullptr));
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 3; ++y)
      for (size_t x = 0; x < 4; ++x)
        for (size_t c = 0; c < 4; ++c)
          ASSERT_EQ(box[((z * 3 + y) * 4 + x) * 4 + c],
                    src[(((z + 3) * h + (y + 2)) * w + (x + 1)) * 4 + c]);
}

TEST_F(Image, Image1DAnd2DArray) {
  cl_mem i1 = image(CL_MEM_OBJECT_IMAGE1D, 64);
  ASSERT_NE(i1, nullptr);
  std::vector<unsigned char> s1(64 * 4);
  for (size_t i = 0; i < s1.size(); ++i) s1[i] = (unsigned char)i;
  size_t o[3] = {0, 0, 0}, r1[3] = {64, 1, 1};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, i1, CL_TRUE, o, r1, 0, 0, s1.data(), 0, nullptr, nullptr));
  std::vector<unsigned char> out1(s1.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, i1, CL_TRUE, o, r1, 0, 0, out1.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out1, s1);

  cl_mem ia = image(CL_MEM_OBJECT_IMAGE2D_ARRAY, 8, 4, 1, {CL_RGBA, CL_UNSIGNED_INT8},
                    CL_MEM_READ_WRITE, nullptr, 0, 3);
  ASSERT_NE(ia, nullptr);
  EXPECT_EQ(imageInfo<size_t>(ia, CL_IMAGE_ARRAY_SIZE), 3u);
  std::vector<unsigned char> sa(8 * 4 * 3 * 4);
  for (size_t i = 0; i < sa.size(); ++i) sa[i] = (unsigned char)(i * 3);
  size_t ra[3] = {8, 4, 3};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, ia, CL_TRUE, o, ra, 0, 0, sa.data(), 0, nullptr, nullptr));
  std::vector<unsigned char> outa(sa.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, ia, CL_TRUE, o, ra, 0, 0, outa.data(), 0, nullptr, nullptr));
  EXPECT_EQ(outa, sa);
}

TEST_F(Image, LegacyCreateImage2DAnd3D) {
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_int err;
  cl_mem a = clCreateImage2D(ctx, CL_MEM_READ_WRITE, &fmt, 16, 16, 0, nullptr, &err);
  ASSERT_CL_OK(err);
  track(a);
  cl_mem b = clCreateImage3D(ctx, CL_MEM_READ_WRITE, &fmt, 8, 8, 4, 0, 0, nullptr, &err);
  ASSERT_CL_OK(err);
  track(b);
  EXPECT_EQ(imageInfo<size_t>(b, CL_IMAGE_DEPTH), 4u);
  cl_mem c = clCreateImageWithProperties(ctx, nullptr, CL_MEM_READ_WRITE, &fmt,
                                         [] {
                                           static cl_image_desc d{};
                                           d.image_type = CL_MEM_OBJECT_IMAGE2D;
                                           d.image_width = 4;
                                           d.image_height = 4;
                                           return &d;
                                         }(),
                                         nullptr, &err);
  ASSERT_CL_OK(err);
  track(c);
}

TEST_F(Image, CreateErrors) {
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 16;
  desc.image_height = 16;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, nullptr, &desc, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, nullptr, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_DESCRIPTOR, err);
  // Host pointer rules as for buffers.
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &fmt, &desc, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_HOST_PTR, err);
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, &fmt, &desc, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
}

TEST_F(Image, CreateErrorsStrict) {
  TUTTI_ONLY();  // PoCL 3.1 answers CL_INVALID_OPERATION / CL_INVALID_VALUE / CL_INVALID_BUFFER_SIZE
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 16;
  desc.image_height = 16;
  cl_int err = CL_SUCCESS;
  cl_image_format badOrder{0x7777, CL_UNSIGNED_INT8};
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, &badOrder, &desc, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
  cl_image_format badType{CL_RGBA, 0x7777};
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, &badType, &desc, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, err);
  cl_image_desc badTypeDesc = desc;
  badTypeDesc.image_type = CL_MEM_OBJECT_BUFFER;
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &badTypeDesc, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_DESCRIPTOR, err);
  cl_image_desc zeroW = desc;
  zeroW.image_width = 0;
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &zeroW, nullptr, &err), nullptr);
  EXPECT_CL_ANY(({CL_INVALID_IMAGE_DESCRIPTOR, CL_INVALID_IMAGE_SIZE}), err);
  cl_image_desc tooWide = desc;
  tooWide.image_width = deviceInfo<size_t>(device, CL_DEVICE_IMAGE2D_MAX_WIDTH) + 1;
  EXPECT_EQ(clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &tooWide, nullptr, &err), nullptr);
  EXPECT_CL(CL_INVALID_IMAGE_SIZE, err);
}

TEST_F(Image, ReadWriteRegionErrors) {
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, 16, 16);
  ASSERT_NE(img, nullptr);
  std::vector<unsigned char> buf(64 * 64 * 4);
  size_t o[3] = {0, 0, 0};
  size_t tooBig[3] = {17, 16, 1};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadImage(queue, img, CL_TRUE, o, tooBig, 0, 0, buf.data(),
                                                 0, nullptr, nullptr));
  size_t o1[3] = {8, 8, 0}, r1[3] = {9, 1, 1};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueWriteImage(queue, img, CL_TRUE, o1, r1, 0, 0, buf.data(), 0,
                                                  nullptr, nullptr));
  size_t depth2[3] = {4, 4, 2};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadImage(queue, img, CL_TRUE, o, depth2, 0, 0, buf.data(),
                                                 0, nullptr, nullptr));
  size_t oz[3] = {0, 0, 1}, r[3] = {4, 4, 1};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadImage(queue, img, CL_TRUE, oz, r, 0, 0, buf.data(), 0,
                                                 nullptr, nullptr));
  size_t zero[3] = {0, 4, 1};
  if (isTutti())  // PoCL 3.1 accepts a zero region
    EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadImage(queue, img, CL_TRUE, o, zero, 0, 0, buf.data(),
                                                   0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE,
            clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, nullptr, 0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueReadImage(queue, img, CL_TRUE, nullptr, r, 0, 0, buf.data(),
                                                 0, nullptr, nullptr));
  // A buffer is not an image.
  cl_mem b = makeBuffer(256);
  EXPECT_CL(CL_INVALID_MEM_OBJECT, clEnqueueReadImage(queue, b, CL_TRUE, o, r, 0, 0, buf.data(), 0,
                                                      nullptr, nullptr));
}

TEST_F(Image, HostNoAccessImage) {
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, 8, 8, 1, {CL_RGBA, CL_UNSIGNED_INT8},
                     CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS);
  ASSERT_NE(img, nullptr);
  std::vector<unsigned char> buf(8 * 8 * 4);
  size_t o[3] = {0, 0, 0}, r[3] = {8, 8, 1};
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, buf.data(),
                                                     0, nullptr, nullptr));
  EXPECT_CL(CL_INVALID_OPERATION, clEnqueueWriteImage(queue, img, CL_TRUE, o, r, 0, 0, buf.data(),
                                                      0, nullptr, nullptr));
  cl_int err = CL_SUCCESS;
  size_t rp = 0;
  EXPECT_EQ(clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, o, r, &rp, nullptr, 0, nullptr,
                              nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_OPERATION, err);
}

TEST_F(Image, CopyImageAndOverlap) {
  const size_t w = 16, h = 16;
  cl_mem a = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  cl_mem b = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  ASSERT_TRUE(a && b);
  std::vector<unsigned char> src(w * h * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i ^ 0x5A);
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, a, CL_TRUE, o, full, 0, 0, src.data(), 0, nullptr, nullptr));
  std::vector<unsigned char> zeros(src.size(), 0);
  ASSERT_CL_OK(clEnqueueWriteImage(queue, b, CL_TRUE, o, full, 0, 0, zeros.data(), 0, nullptr, nullptr));
  size_t so[3] = {2, 3, 0}, dorig[3] = {5, 1, 0}, reg[3] = {6, 7, 1};
  ASSERT_CL_OK(clEnqueueCopyImage(queue, a, b, so, dorig, reg, 0, nullptr, nullptr));
  std::vector<unsigned char> out(src.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, b, CL_TRUE, o, full, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x)
      for (size_t c = 0; c < 4; ++c) {
        bool in = x >= 5 && x < 11 && y >= 1 && y < 8;
        unsigned char want = in ? src[((y - 1 + 3) * w + (x - 5 + 2)) * 4 + c] : 0;
        ASSERT_EQ(out[(y * w + x) * 4 + c], want) << x << "," << y;
      }
  // Overlapping copy inside one image.
  size_t s2[3] = {0, 0, 0}, d2[3] = {2, 2, 0}, r2[3] = {4, 4, 1};
  EXPECT_CL(CL_MEM_COPY_OVERLAP, clEnqueueCopyImage(queue, a, a, s2, d2, r2, 0, nullptr, nullptr));
  // Out of bounds.
  size_t d3[3] = {14, 0, 0};
  if (isTutti())  // PoCL 3.1 does not bounds-check image copies
    EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyImage(queue, a, b, s2, d3, r2, 0, nullptr, nullptr));
  // Format mismatch.
  cl_mem f = image(CL_MEM_OBJECT_IMAGE2D, w, h, 1, {CL_RGBA, CL_FLOAT});
  EXPECT_CL(CL_IMAGE_FORMAT_MISMATCH, clEnqueueCopyImage(queue, a, f, s2, s2, r2, 0, nullptr, nullptr));
}

TEST_F(Image, FillImage) {
  const size_t w = 8, h = 8;
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, w, h, 1, {CL_RGBA, CL_UNSIGNED_INT8});
  ASSERT_NE(img, nullptr);
  cl_uint4 color = {{1, 2, 3, 4}};
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1};
  ASSERT_CL_OK(clEnqueueFillImage(queue, img, &color, o, full, 0, nullptr, nullptr));
  cl_uint4 c2 = {{9, 9, 9, 9}};
  size_t o2[3] = {2, 2, 0}, r2[3] = {3, 3, 1};
  ASSERT_CL_OK(clEnqueueFillImage(queue, img, &c2, o2, r2, 0, nullptr, nullptr));
  std::vector<unsigned char> out(w * h * 4);
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, full, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x)
      for (size_t c = 0; c < 4; ++c) {
        bool in = x >= 2 && x < 5 && y >= 2 && y < 5;
        ASSERT_EQ(out[(y * w + x) * 4 + c], in ? 9 : (int)c + 1) << x << "," << y;
      }
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillImage(queue, img, nullptr, o, full, 0, nullptr, nullptr));
  size_t big[3] = {w + 1, h, 1};
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueFillImage(queue, img, &color, o, big, 0, nullptr, nullptr));
}

TEST_F(Image, MapImage) {
  const size_t w = 12, h = 10;
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  ASSERT_NE(img, nullptr);
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1};
  size_t rowPitch = 0;
  cl_int err;
  unsigned char *p = (unsigned char *)clEnqueueMapImage(
      queue, img, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, o, full, &rowPitch, nullptr, 0, nullptr,
      nullptr, &err);
  ASSERT_CL_OK(err);
  ASSERT_NE(p, nullptr);
  ASSERT_GE(rowPitch, w * 4);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w * 4; ++x) p[y * rowPitch + x] = (unsigned char)(x + y * 7);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img, p, 0, nullptr, nullptr));
  std::vector<unsigned char> out(w * h * 4);
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, full, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w * 4; ++x) ASSERT_EQ(out[y * w * 4 + x], (unsigned char)(x + y * 7));
  // Map a sub-region for reading.
  size_t o2[3] = {4, 3, 0}, r2[3] = {2, 2, 1};
  p = (unsigned char *)clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, o2, r2, &rowPitch,
                                         nullptr, 0, nullptr, nullptr, &err);
  ASSERT_CL_OK(err);
  EXPECT_EQ(p[0], (unsigned char)(16 + 21));
  EXPECT_EQ(p[rowPitch], (unsigned char)(16 + 28));
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img, p, 0, nullptr, nullptr));
  // image_row_pitch is required.
  EXPECT_EQ(clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, o, full, nullptr, nullptr, 0,
                              nullptr, nullptr, &err),
            nullptr);
  EXPECT_CL(CL_INVALID_VALUE, err);
  ASSERT_CL_OK(clFinish(queue));
}

TEST_F(Image, CopyBetweenImageAndBuffer) {
  const size_t w = 8, h = 4;
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  std::vector<unsigned char> src(w * h * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(200 - i);
  cl_mem buf = makeBuffer(src.size() + 64, CL_MEM_READ_WRITE);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 64, src.size(), src.data(), 0, nullptr,
                                    nullptr));
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1};
  ASSERT_CL_OK(clEnqueueCopyBufferToImage(queue, buf, img, 64, o, full, 0, nullptr, nullptr));
  std::vector<unsigned char> out(src.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, full, 0, 0, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, src);
  cl_mem buf2 = makeBuffer(src.size());
  ASSERT_CL_OK(clEnqueueCopyImageToBuffer(queue, img, buf2, o, full, 0, 0, nullptr, nullptr));
  std::vector<unsigned char> out2(src.size());
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, buf2, CL_TRUE, 0, out2.size(), out2.data(), 0, nullptr,
                                   nullptr));
  EXPECT_EQ(out2, src);
  // Buffer too small.
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyImageToBuffer(queue, img, buf2, o, full, 4, 0, nullptr,
                                                         nullptr));
  EXPECT_CL(CL_INVALID_VALUE, clEnqueueCopyBufferToImage(queue, buf2, img, 4, o, full, 0, nullptr,
                                                         nullptr));
}

TEST_F(Image, KernelReadsAndWritesImages) {
  const char *src = R"CLC(
    __constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    __kernel void invert(__read_only image2d_t in, __write_only image2d_t out) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      uint4 v = read_imageui(in, smp, p);
      write_imageui(out, p, (uint4)(255) - v);
    }
    __kernel void sample_arg(__read_only image2d_t in, sampler_t s, __global float4 *out) {
      int i = get_global_id(0);
      out[i] = read_imagef(in, s, (int2)(i, 0));
    }
  )CLC";
  cl_program prog = makeProgram(src);
  ASSERT_NE(prog, nullptr);
  cl_kernel inv = makeKernel(prog, "invert");
  const size_t w = 16, h = 8;
  cl_mem a = image(CL_MEM_OBJECT_IMAGE2D, w, h, 1, {CL_RGBA, CL_UNSIGNED_INT8}, CL_MEM_READ_ONLY);
  cl_mem b = image(CL_MEM_OBJECT_IMAGE2D, w, h, 1, {CL_RGBA, CL_UNSIGNED_INT8}, CL_MEM_WRITE_ONLY);
  std::vector<unsigned char> px(w * h * 4);
  for (size_t i = 0; i < px.size(); ++i) px[i] = (unsigned char)i;
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, a, CL_TRUE, o, full, 0, 0, px.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clSetKernelArg(inv, 0, sizeof a, &a));
  ASSERT_CL_OK(clSetKernelArg(inv, 1, sizeof b, &b));
  size_t g[2] = {w, h};
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, inv, 2, nullptr, g, nullptr, 0, nullptr, nullptr));
  std::vector<unsigned char> out(px.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, b, CL_TRUE, o, full, 0, 0, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < px.size(); ++i) ASSERT_EQ(out[i], 255 - px[i]) << i;

  // Sampler passed as an argument; UNORM_INT8 read gives normalized floats.
  cl_kernel smpK = makeKernel(prog, "sample_arg");
  cl_mem u = image(CL_MEM_OBJECT_IMAGE2D, 4, 1, 1, {CL_RGBA, CL_UNORM_INT8}, CL_MEM_READ_ONLY);
  unsigned char upx[16] = {0, 255, 51, 102, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  size_t r4[3] = {4, 1, 1};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, u, CL_TRUE, o, r4, 0, 0, upx, 0, nullptr, nullptr));
  cl_int err;
  cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  ASSERT_CL_OK(err);
  track(s);
  cl_mem outBuf = makeBuffer(4 * sizeof(cl_float4));
  ASSERT_CL_OK(clSetKernelArg(smpK, 0, sizeof u, &u));
  ASSERT_CL_OK(clSetKernelArg(smpK, 1, sizeof s, &s));
  ASSERT_CL_OK(clSetKernelArg(smpK, 2, sizeof outBuf, &outBuf));
  ASSERT_CL_OK(run1D(smpK, 4));
  cl_float4 res[4];
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, outBuf, CL_TRUE, 0, sizeof res, res, 0, nullptr, nullptr));
  EXPECT_NEAR(res[0].s[0], 0.0f, 1e-3);
  EXPECT_NEAR(res[0].s[1], 1.0f, 1e-3);
  EXPECT_NEAR(res[0].s[2], 0.2f, 1e-3);
  EXPECT_NEAR(res[0].s[3], 0.4f, 1e-3);
  EXPECT_NEAR(res[1].s[0], 1.0f, 1e-3);
}

TEST_F(Image, ImageFromBuffer1D) {
  const size_t w = 32;
  cl_mem buf = makeBuffer(w * 4);
  std::vector<unsigned char> src(w * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i + 3);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, src.size(), src.data(), 0, nullptr,
                                    nullptr));
  cl_mem img = image(CL_MEM_OBJECT_IMAGE1D_BUFFER, w, 1, 1, {CL_RGBA, CL_UNSIGNED_INT8},
                     CL_MEM_READ_WRITE, nullptr, 0, 0, buf);
  ASSERT_NE(img, nullptr);
  EXPECT_EQ(imageInfo<cl_mem>(img, CL_IMAGE_BUFFER), buf);
  std::vector<unsigned char> out(src.size());
  size_t o[3] = {0, 0, 0}, r[3] = {w, 1, 1};
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, r, 0, 0, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, src);
}

// A 1-D buffer image and its buffer are one set of bytes: writes through either are
// seen through the other, in enqueue order, whichever backing device runs each launch.
// (PoCL 3.1 crashes on kernels that write an image1d_buffer_t, so writes to the image
// go through clEnqueueWriteImage here.)
TEST_F(Image, ImageFromBufferSharesBytesWithKernels) {
  const size_t w = 64;
  cl_program p = makeProgram(R"CLC(
    __kernel void bump(__global uchar *b) { b[get_global_id(0)] += 1; }
    __kernel void copy_img(__read_only image1d_buffer_t in, __global uint4 *out) {
      int i = get_global_id(0); out[i] = read_imageui(in, i); })CLC");
  cl_kernel bump = makeKernel(p, "bump"), copy = makeKernel(p, "copy_img");
  ASSERT_TRUE(bump && copy);
  cl_mem buf = makeBuffer(w * 4);
  cl_mem out = makeBuffer(w * 16);
  std::vector<unsigned char> src(w * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i * 7 + 1);
  ASSERT_CL_OK(clEnqueueWriteBuffer(queue, buf, CL_FALSE, 0, src.size(), src.data(), 0, nullptr,
                                    nullptr));
  cl_mem img = image(CL_MEM_OBJECT_IMAGE1D_BUFFER, w, 1, 1, {CL_RGBA, CL_UNSIGNED_INT8},
                     CL_MEM_READ_WRITE, nullptr, 0, 0, buf);
  ASSERT_NE(img, nullptr);
  ASSERT_CL_OK(clSetKernelArg(bump, 0, sizeof buf, &buf));
  ASSERT_CL_OK(clSetKernelArg(copy, 0, sizeof img, &img));
  ASSERT_CL_OK(clSetKernelArg(copy, 1, sizeof out, &out));
  size_t bytes = w * 4;
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, bump, 1, nullptr, &bytes, nullptr, 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, copy, 1, nullptr, &w, nullptr, 0, nullptr, nullptr));
  std::vector<cl_uint> got(w * 4);
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, w * 16, got.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], (cl_uint)(unsigned char)(src[i] + 1)) << i;
  // Image write, then a kernel on the buffer, then reads through both.
  std::vector<unsigned char> part(16 * 4);
  for (size_t i = 0; i < part.size(); ++i) part[i] = (unsigned char)(200 + i);
  size_t o[3] = {8, 0, 0}, r[3] = {16, 1, 1};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, img, CL_FALSE, o, r, 0, 0, part.data(), 0, nullptr, nullptr));
  ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, bump, 1, nullptr, &bytes, nullptr, 0, nullptr, nullptr));
  std::vector<unsigned char> want(src.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = (unsigned char)(src[i] + 2);
  for (size_t i = 0; i < part.size(); ++i) want[32 + i] = (unsigned char)(part[i] + 1);
  std::vector<unsigned char> viaImage(w * 4), viaBuffer(w * 4);
  size_t o0[3] = {0, 0, 0}, all[3] = {w, 1, 1};
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_FALSE, o0, all, 0, 0, viaImage.data(), 0, nullptr,
                                  nullptr));
  ASSERT_CL_OK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, bytes, viaBuffer.data(), 0, nullptr,
                                   nullptr));
  EXPECT_EQ(viaImage, want);
  EXPECT_EQ(viaBuffer, want);
  EXPECT_EQ(imageInfo<cl_mem>(img, CL_IMAGE_BUFFER), buf);
  cl_mem assoc = nullptr;
  ASSERT_CL_OK(clGetMemObjectInfo(img, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, nullptr));
  EXPECT_EQ(assoc, buf);
}

// Images written by one kernel and read by the next (under round-robin placement the
// two launches run on different backing devices), then read back on the host.
TEST_F(Image, KernelChainAcrossLaunches) {
  const char *src = R"CLC(
    __constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
    __kernel void inc(__read_only image2d_t in, __write_only image2d_t out) {
      int2 p = (int2)(get_global_id(0), get_global_id(1));
      write_imageui(out, p, read_imageui(in, smp, p) + (uint4)(1));
    }
  )CLC";
  cl_program prog = makeProgram(src);
  ASSERT_NE(prog, nullptr);
  cl_kernel k = makeKernel(prog, "inc");
  const size_t w = 32, h = 16;
  cl_mem a = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  cl_mem b = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  std::vector<unsigned char> px(w * h * 4);
  for (size_t i = 0; i < px.size(); ++i) px[i] = (unsigned char)(i % 200);
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1}, g[2] = {w, h};
  ASSERT_CL_OK(clEnqueueWriteImage(queue, a, CL_TRUE, o, full, 0, 0, px.data(), 0, nullptr, nullptr));
  for (int step = 0; step < 4; ++step) {
    cl_mem in = step % 2 ? b : a, out = step % 2 ? a : b;
    ASSERT_CL_OK(clSetKernelArg(k, 0, sizeof in, &in));
    ASSERT_CL_OK(clSetKernelArg(k, 1, sizeof out, &out));
    ASSERT_CL_OK(clEnqueueNDRangeKernel(queue, k, 2, nullptr, g, nullptr, 0, nullptr, nullptr));
  }
  std::vector<unsigned char> res(px.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, a, CL_TRUE, o, full, 0, 0, res.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < px.size(); ++i) ASSERT_EQ(res[i], px[i] + 4) << i;
}

// A CL_MEM_USE_HOST_PTR image maps to the app's own memory: the spec has the pointer
// derived from host_ptr, with the pitches the image was created with. Tutti handed out
// a staging block of its own instead.
TEST_F(Image, MapUseHostPtrImagePointsIntoHostMemory) {
  const size_t w = 6, h = 4, d = 3, row = w * 4 + 8, slice = row * (h + 1);
  std::vector<unsigned char> host(slice * d, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = (unsigned char)(i * 7 + 1);
  cl_image_format fmt{CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = w, desc.image_height = h, desc.image_depth = d;
  desc.image_row_pitch = row, desc.image_slice_pitch = slice;
  cl_int err = CL_SUCCESS;
  cl_mem img = clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &fmt, &desc,
                             host.data(), &err);
  ASSERT_CL_OK(err);
  track(img);
  const std::vector<unsigned char> before = host;

  size_t o[3] = {1, 2, 1}, r[3] = {3, 2, 2}, rp = 0, sp = 0;
  auto *p = static_cast<unsigned char *>(clEnqueueMapImage(
      queue, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, o, r, &rp, &sp, 0, nullptr, nullptr, &err));
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, host.data() + o[2] * slice + o[1] * row + o[0] * 4);
  EXPECT_EQ(rp, row);
  EXPECT_EQ(sp, slice);
  for (size_t z = 0; z < r[2]; ++z)
    for (size_t y = 0; y < r[1]; ++y)
      for (size_t x = 0; x < r[0] * 4; ++x)
        ASSERT_EQ(p[z * sp + y * rp + x], before[(o[2] + z) * slice + (o[1] + y) * row + o[0] * 4 + x]);
  p[0] = 200;  // the pixel at the map's origin, written through the mapping
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img, p, 0, nullptr, nullptr));
  unsigned char px[4] = {0, 0, 0, 0};
  size_t one[3] = {1, 1, 1};
  ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, one, 0, 0, px, 0, nullptr, nullptr));
  EXPECT_EQ(px[0], 200);
  EXPECT_EQ(px[1], before[o[2] * slice + o[1] * row + o[0] * 4 + 1]);

  // A 2-D image maps into host_ptr with its row pitch, and no slice pitch.
  desc = cl_image_desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w, desc.image_height = h, desc.image_row_pitch = row;
  cl_mem img2 = clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &fmt, &desc,
                              host.data(), &err);
  ASSERT_CL_OK(err);
  track(img2);
  size_t o2[3] = {2, 1, 0}, r2[3] = {2, 2, 1};
  p = static_cast<unsigned char *>(clEnqueueMapImage(queue, img2, CL_TRUE, CL_MAP_READ, o2, r2,
                                                     &rp, &sp, 0, nullptr, nullptr, &err));
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, host.data() + row + 2 * 4);
  EXPECT_EQ(rp, row);
  EXPECT_EQ(sp, 0u);
  EXPECT_EQ(p[rp], host[2 * row + 2 * 4]);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img2, p, 0, nullptr, nullptr));

  // An image made from a CL_MEM_USE_HOST_PTR buffer maps into the buffer's host_ptr.
  cl_mem buf = makeBuffer(w * 4, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, host.data());
  cl_mem img1 = image(CL_MEM_OBJECT_IMAGE1D_BUFFER, w, 1, 1, fmt, CL_MEM_READ_WRITE, nullptr, 0,
                      0, buf);
  ASSERT_NE(img1, nullptr);
  size_t o1[3] = {2, 0, 0}, r1[3] = {3, 1, 1};
  p = static_cast<unsigned char *>(clEnqueueMapImage(queue, img1, CL_TRUE, CL_MAP_READ, o1, r1,
                                                     &rp, &sp, 0, nullptr, nullptr, &err));
  ASSERT_CL_OK(err);
  EXPECT_EQ(p, host.data() + 2 * 4);
  EXPECT_EQ(p[5], host[2 * 4 + 5]);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img1, p, 0, nullptr, nullptr));
  ASSERT_CL_OK(clFinish(queue));
}

// CL_MEM_HOST_WRITE_ONLY forbids only host reads: mapping for writing must work, and
// CL_MAP_WRITE (unlike CL_MAP_WRITE_INVALIDATE_REGION) keeps the pixels the host did not
// touch. Tutti read the region in through a real image that refused host reads.
TEST_F(Image, MapHostWriteOnlyImageForWriting) {
  const size_t w = 8, h = 4;
  std::vector<unsigned char> init(w * h * 4);
  for (size_t i = 0; i < init.size(); ++i) init[i] = (unsigned char)(i + 5);
  cl_mem img = image(CL_MEM_OBJECT_IMAGE2D, w, h, 1, {CL_RGBA, CL_UNSIGNED_INT8},
                     CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, init.data());
  cl_mem copy = image(CL_MEM_OBJECT_IMAGE2D, w, h);
  ASSERT_NE(img, nullptr);
  ASSERT_NE(copy, nullptr);
  size_t o[3] = {0, 0, 0}, full[3] = {w, h, 1}, rp = 0;
  cl_int err = CL_SUCCESS;
  size_t o1[3] = {2, 1, 0}, r1[3] = {3, 2, 1};
  auto *p = static_cast<unsigned char *>(clEnqueueMapImage(
      queue, img, CL_TRUE, CL_MAP_WRITE, o1, r1, &rp, nullptr, 0, nullptr, nullptr, &err));
  ASSERT_CL_OK(err);
  ASSERT_NE(p, nullptr);
  p[0] = 250;  // one byte of the region; the rest must keep the image's content
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img, p, 0, nullptr, nullptr));
  std::vector<unsigned char> want = init;
  want[(o1[1] * w + o1[0]) * 4] = 250;

  size_t o2[3] = {0, 3, 0}, r2[3] = {w, 1, 1};
  p = static_cast<unsigned char *>(clEnqueueMapImage(queue, img, CL_TRUE,
                                                     CL_MAP_WRITE_INVALIDATE_REGION, o2, r2, &rp,
                                                     nullptr, 0, nullptr, nullptr, &err));
  ASSERT_CL_OK(err);
  ASSERT_NE(p, nullptr);
  for (size_t x = 0; x < w * 4; ++x) p[x] = want[3 * w * 4 + x] = (unsigned char)(x * 3);
  ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img, p, 0, nullptr, nullptr));

  ASSERT_CL_OK(clEnqueueCopyImage(queue, img, copy, o, o, full, 0, nullptr, nullptr));
  std::vector<unsigned char> out(init.size());
  ASSERT_CL_OK(clEnqueueReadImage(queue, copy, CL_TRUE, o, full, 0, 0, out.data(), 0, nullptr, nullptr));
  EXPECT_EQ(out, want);
}

// Maps of image arrays and 3-D images, from a later layer on: a 1-D array's slice pitch
// is its row pitch (each layer is one row), where Tutti reported row x layers and read
// layers 1.. to the wrong place (0 instead of 129), past the end of its map block.
TEST_F(Image, MapLayersOfArraysAndVolumes) {
  const size_t w = 16, layers = 4, h = 3;
  struct Case {
    cl_mem_object_type type;
    size_t dims[3];  // the image's extent as a region
  } cases[] = {
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, {w, layers, 1}},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, {w, h, layers}},
      {CL_MEM_OBJECT_IMAGE3D, {w, h, layers}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.type);
    bool is1DArray = c.type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    cl_mem img = c.type == CL_MEM_OBJECT_IMAGE3D
                     ? image(c.type, w, h, layers, {CL_R, CL_UNSIGNED_INT8})
                     : image(c.type, w, h, 1, {CL_R, CL_UNSIGNED_INT8}, CL_MEM_READ_WRITE,
                             nullptr, 0, layers);
    ASSERT_NE(img, nullptr);
    // Byte (x, y, z) = 128 * layer + 1 + x, the layer being y for a 1-D array, z otherwise.
    const size_t n = c.dims[0] * c.dims[1] * c.dims[2];
    std::vector<unsigned char> px(n);
    auto at = [&](size_t x, size_t y, size_t z) {
      return (unsigned char)(128 * (is1DArray ? y : z) + 1 + x + (is1DArray ? 0 : 20 * y));
    };
    for (size_t z = 0; z < c.dims[2]; ++z)
      for (size_t y = 0; y < c.dims[1]; ++y)
        for (size_t x = 0; x < w; ++x) px[(z * c.dims[1] + y) * w + x] = at(x, y, z);
    size_t o[3] = {0, 0, 0};
    ASSERT_CL_OK(clEnqueueWriteImage(queue, img, CL_TRUE, o, c.dims, 0, 0, px.data(), 0, nullptr,
                                     nullptr));

    // The whole image, then a box starting in a later layer.
    size_t later[3] = {3, 1, is1DArray ? 0u : 1u};
    size_t box[3] = {5, is1DArray ? layers - 1 : 2, is1DArray ? 1u : layers - 1};
    for (auto *origin : {o, later}) {
      const size_t *region = origin == o ? c.dims : box;
      size_t rp = 0, sp = 0;
      cl_int err = CL_SUCCESS;
      auto *p = static_cast<unsigned char *>(clEnqueueMapImage(
          queue, img, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, region, &rp, &sp, 0, nullptr,
          nullptr, &err));
      ASSERT_CL_OK(err);
      ASSERT_NE(p, nullptr);
      ASSERT_GE(rp, region[0]);
      if (is1DArray) EXPECT_EQ(sp, rp) << "a 1-D array's layers are rows";
      else EXPECT_GE(sp, rp * region[1]);
      // A 1-D array's layer index is origin/region[1], so its stride is the slice pitch.
      const size_t ys = is1DArray ? sp : rp, zs = sp;
      for (size_t z = 0; z < region[2]; ++z)
        for (size_t y = 0; y < region[1]; ++y)
          for (size_t x = 0; x < region[0]; ++x)
            ASSERT_EQ(p[z * zs + y * ys + x], at(origin[0] + x, origin[1] + y, origin[2] + z))
                << x << "," << y << "," << z;
      // Written back to the same layer: the last pixel of the region, through the mapping.
      size_t lx = region[0] - 1, ly = region[1] - 1, lz = region[2] - 1;
      p[lz * zs + ly * ys + lx] = 0;
      ASSERT_CL_OK(clEnqueueUnmapMemObject(queue, img, p, 0, nullptr, nullptr));
      std::vector<unsigned char> out(n);
      ASSERT_CL_OK(clEnqueueReadImage(queue, img, CL_TRUE, o, c.dims, 0, 0, out.data(), 0,
                                      nullptr, nullptr));
      size_t gx = origin[0] + lx, gy = origin[1] + ly, gz = origin[2] + lz;
      size_t idx = (gz * c.dims[1] + gy) * w + gx;
      EXPECT_EQ(out[idx], 0);
      out[idx] = px[idx];
      EXPECT_EQ(out, px) << "only the pixel written through the mapping changed";
      ASSERT_CL_OK(clEnqueueWriteImage(queue, img, CL_TRUE, o, c.dims, 0, 0, px.data(), 0,
                                       nullptr, nullptr));
    }
  }
}
