#ifndef SPEC_H
#define SPEC_H
#endif
