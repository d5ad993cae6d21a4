#include "triage.h"
