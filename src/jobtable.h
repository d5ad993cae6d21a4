#ifndef JOBTABLE_H
#define JOBTABLE_H
#endif
