#include "nccl.h"
