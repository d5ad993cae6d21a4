#ifndef SLURM_H
#define SLURM_H
#endif
