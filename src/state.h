#ifndef STATE_H
#define STATE_H
#endif
