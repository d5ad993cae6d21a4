#include "lint.h"
