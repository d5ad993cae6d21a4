#include "remote.h"
