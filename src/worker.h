#ifndef WORKER_H
#define WORKER_H
#endif
