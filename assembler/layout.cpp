// Implemented by the layout-table work (see layout.h).
#include "assembler/layout.h"
