#ifndef MONITOR_H
#define MONITOR_H
#endif
