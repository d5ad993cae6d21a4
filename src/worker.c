#include "worker.h"
