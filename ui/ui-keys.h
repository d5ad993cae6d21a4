#ifndef UI_KEYS_H
#define UI_KEYS_H
#endif
