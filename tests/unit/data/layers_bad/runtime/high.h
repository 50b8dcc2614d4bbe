// high.h - includes the API layer.
#include "api.h"
