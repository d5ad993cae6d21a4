#ifndef TRIAGE_H
#define TRIAGE_H
#endif
