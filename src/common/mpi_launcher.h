/* What an MPI (or batch) launcher tells a process about its place in the
 * job, read from the environment it sets.  tsshim never calls MPI: Open MPI,
 * MPICH/Hydra, PMIx, Slurm and MVAPICH all export these before main. */
#ifndef TS_LAUNCHER_H
#define TS_LAUNCHER_H

#include <stdint.h>

/* The process's rank in the job, or -1 when no launcher says. */
int ts_launcher_rank(void);

/* The process's rank among those on its node, or -1 when no launcher says;
 * *local_size (when not NULL) gets their number, or 0 when unknown. */
int ts_launcher_local_rank(int *local_size);

/* The device host-data calls run on: TSSHIM_DEVICE when it names one
 * (configured >= 0), else the node-local rank spread round-robin over the
 * `count` visible devices, else device 0. */
int ts_home_device(int64_t configured, int count);

/* How many of the node's local ranks share this process's device when
 * they are spread as ts_home_device spreads them over `count` devices (all
 * of them with TSSHIM_DEVICE set, configured >= 0); 1 without a launcher. */
int ts_launcher_sharers(int64_t configured, int count);

/* Whether the process runs under an MPI launcher (a node-local rank is
 * set), read once. */
int ts_launcher_present(void);

#endif
