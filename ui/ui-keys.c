#include "ui-keys.h"
