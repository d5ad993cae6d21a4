#ifndef URI_H
#define URI_H
#endif
