#ifndef CONN_H
#define CONN_H
#endif
