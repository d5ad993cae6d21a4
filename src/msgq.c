#include "msgq.h"
