#ifndef SUBMIT_H
#define SUBMIT_H
#endif
