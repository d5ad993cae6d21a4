#ifndef UI_TEXT_H
#define UI_TEXT_H
#endif
