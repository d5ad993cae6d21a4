#include "uri.h"
