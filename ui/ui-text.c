#include "ui-text.h"
