#ifndef OPS_H
#define OPS_H
#endif
