// json_writer.cpp: minimal streaming JSON writer (pretty-printed, two-space indent).
#include "json_writer.h"

#include <cmath>
#include <cstdio>

namespace tutti::profiles {

std::string jsonEscape(const std::string& s) {
  std::string o;
  o.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o;
}

void JsonWriter::indent() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonWriter::separate() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  indent();
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) indent();
  out_ += bracket;
  if (first_.empty()) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::beginObject() { return open('{'); }
JsonWriter& JsonWriter::endObject() { return close('}'); }
JsonWriter& JsonWriter::beginArray() { return open('['); }
JsonWriter& JsonWriter::endArray() { return close(']'); }

JsonWriter& JsonWriter::key(const std::string& k) {
  separate();
  out_ += '"' + jsonEscape(k) + "\": ";
  afterKey_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& s) {
  separate();
  out_ += '"' + jsonEscape(s) + '"';
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  separate();
  if (!std::isfinite(d)) {
    out_ += "null";
    return *this;
  }
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", d);
  out_ += b;
  return *this;
}

JsonWriter& JsonWriter::value(long long i) {
  separate();
  out_ += std::to_string(i);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  separate();
  out_ += v ? "true" : "false";
  return *this;
}

}  // namespace tutti::profiles
