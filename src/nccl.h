#ifndef NCCL_H
#define NCCL_H
#endif
