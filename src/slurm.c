#include "slurm.h"
