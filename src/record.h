#ifndef RECORD_H
#define RECORD_H
#endif
