#ifndef MSGQ_H
#define MSGQ_H
#endif
