#ifndef UI_WIZARD_H
#define UI_WIZARD_H
#endif
