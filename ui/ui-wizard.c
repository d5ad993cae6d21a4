#include "ui-wizard.h"
