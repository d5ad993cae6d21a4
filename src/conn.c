#include "conn.h"
