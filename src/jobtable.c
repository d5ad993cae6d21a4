#include "jobtable.h"
