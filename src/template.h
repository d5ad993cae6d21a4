#ifndef TEMPLATE_H
#define TEMPLATE_H
#endif
