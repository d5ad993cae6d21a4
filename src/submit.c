#include "submit.h"
