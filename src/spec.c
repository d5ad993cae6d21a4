#include "spec.h"
