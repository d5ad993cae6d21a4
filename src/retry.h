#ifndef RETRY_H
#define RETRY_H
#endif
