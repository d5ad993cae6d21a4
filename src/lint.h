#ifndef LINT_H
#define LINT_H
#endif
