// feature_codec.h: text form of a Features map as stored in the database.
// Plain "name\tvalue\n" lines keep the schema one table and the rows readable in sqlite3.
#pragma once

#include <string>

#include "tutti/profile_types.h"

namespace tutti::profiles {

std::string encodeFeatures(const Features& f);
Features decodeFeatures(const std::string& s);

}  // namespace tutti::profiles
