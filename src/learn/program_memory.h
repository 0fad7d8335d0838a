/* What a program's earlier runs learned about starting the GPU, kept in
 * the profile beside the learned rates (TSSHIM_LEARN_SAVE=1), one line per
 * executable:
 *     program.KEY FACTOR
 * KEY: a hash of the executable's path (/proc/self/exe).  FACTOR 0: the
 * last run's start paid for itself (the calls on the GPU after it saved at
 * least the profile's gpu_start_s), so this run begins the start as the
 * shim is loaded, where the program's own work before its first large call
 * hides it.  FACTOR 1, 2, 4, 8 or 16: the start ledger's price
 * (gpu_start_s) is multiplied by it; it doubles after each run whose start
 * saved less than that.  Within one run the ledger cannot know how many
 * calls are left (a rent-or-buy rule); the program's earlier runs can.  A
 * run that never started the GPU leaves the line as it was. */
#ifndef TS_PROGRAM_MEMORY_H
#define TS_PROGRAM_MEMORY_H

#include <stddef.h>

#include "util/configuration.h"
#include "learn/profile.h"

enum { TS_PROGRAM_FACTOR_MAX = 16, TS_PROGRAM_KEY_LEN = 32 };

/* "program." and the hash of an executable's path, in key (at least
 * TS_PROGRAM_KEY_LEN bytes). */
void ts_program_key(const char *exe, char *key);

/* The factor the file holds for key: 1 when it has no valid line (a whole
 * line, FACTOR 0 or a power of two up to TS_PROGRAM_FACTOR_MAX). */
int ts_program_read(const char *path, const char *key);

/* The file's lines, less key's, then key's with factor; atomic and
 * serialised with other writers (ts_profile_replace).  0 or -1. */
int ts_program_write(const char *path, const char *key, int factor);

/* The next run's factor after a run with factor `old` that started the GPU
 * (started) and saved `gain` seconds on it against a start price of
 * `price`; a run that did not start keeps `old`. */
int ts_program_next(int old, int started, double gain, double price);

/* In the shim's constructor: with TSSHIM_LEARN_SAVE=1, auto mode, the
 * default background start and a device visible, reads this program's
 * factor and arranges the verdict's save at exit.  Returns 1 when the
 * start should begin now (factor 0). */
int ts_program_memory_start(const ts_config *cfg, int devices);

/* The start ledger's price for this run: gpu_start_s times the factor
 * (at least 1). */
double ts_program_start_price(const ts_profile *prof);

/* A call the cost model sent to the GPU saved `seconds` (its predicted CPU
 * time less its measured GPU time; negative when it lost). */
void ts_program_gained(double seconds);

/* Saves the verdict on this run's start (gpu_started: the GPU did start)
 * when ts_program_memory_start was active: a step of the exit sequence
 * (src/entry/lifecycle.c). */
void ts_program_memory_save(int gpu_started);

#endif
