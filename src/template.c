#include "template.h"
