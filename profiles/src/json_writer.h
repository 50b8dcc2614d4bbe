// json_writer.h: minimal streaming JSON writer for the database export.
// Enough for objects, arrays, strings and numbers; no dependency for one feature.
#pragma once

#include <string>
#include <vector>

namespace tutti::profiles {

class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double d);  // non-finite numbers become null (JSON has no NaN)
  JsonWriter& value(long long i);
  JsonWriter& value(bool b);
  const std::string& str() const { return out_; }

 private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  void separate();
  void indent();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool afterKey_ = false;
};

std::string jsonEscape(const std::string& s);

}  // namespace tutti::profiles
