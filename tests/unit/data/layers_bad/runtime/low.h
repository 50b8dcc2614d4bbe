// low.h - includes a layer above.
#include "high.h"
