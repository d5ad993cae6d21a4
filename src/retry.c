#include "retry.h"
