#ifndef PLAN_H
#define PLAN_H
#endif
