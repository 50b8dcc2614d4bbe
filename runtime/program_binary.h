// program_binary.h - the container Tutti returns for CL_PROGRAM_BINARIES: the source,
// the build options and each backing device's own binary, so a cached program can be
// restored on the same machine and rebuilt from source anywhere else.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tutti {

struct ProgramBinary {
  struct Entry {
    std::string deviceKey;  // platform | device | driver version
    uint32_t binaryType = 0;
    std::vector<unsigned char> bytes;
  };
  std::string source;
  std::string options;
  std::vector<Entry> entries;

  std::vector<unsigned char> serialize() const;
  // False (and nothing changed) when the bytes are not a valid container.
  bool parse(const unsigned char *data, size_t size);
};

}  // namespace tutti
