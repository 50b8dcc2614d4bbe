#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tutti/compiler.h"

namespace tutti::compiler::detail {

struct Hasher {
  uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL, len = 0;
  void add(const void *data, size_t n);
  void addStr(const std::string &s);
  std::string hex() const;  // 32 hex digits
};

bool readFile(const std::string &path, std::string &out);
std::string hashOfFile(const std::string &path);  // "" if unreadable

std::string serializeResult(const CompileResult &res);
bool deserializeResult(const std::string &data, CompileResult &res);

bool cacheLoad(const std::string &dir, const std::string &key, CompileResult &out);
bool cacheStore(const std::string &dir, const std::string &key,
                const std::vector<std::string> &deps, const CompileResult &res);

}  // namespace tutti::compiler::detail
