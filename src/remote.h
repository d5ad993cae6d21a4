#ifndef REMOTE_H
#define REMOTE_H
#endif
