/* The learned cost-model corrections (learned_rates.h) kept in the
 * profile file between runs, when TSSHIM_LEARN_SAVE=1: read back at start,
 * so the next run starts corrected, and merged into the file at exit.  One
 * line per cell,
 *     learned.SIDE.CLASS.PREC.BUCKET FACTOR SAMPLES
 * e.g. `learned.gpu.tsm2.d.7 0.82 12` (SIDE cpu or gpu; FACTOR measured
 * over predicted time); ts_profile_read skips such lines, and
 * tsshim-calibrate's new profile drops them (they correct the old one). */
#ifndef TS_LEARNED_STORE_H
#define TS_LEARNED_STORE_H

/* Sets the cells the file names with valid values; returns how many, or
 * -1 when the file cannot be read.  A line with anything wrong (unknown
 * cell, a factor outside [1/TS_LEARNED_MAX, TS_LEARNED_MAX], no final newline) is skipped. */
int ts_learned_load(const char *path);

/* Merges into the file the cells this process measured (they replace the
 * file's); every other line stays as it was.  Atomic and serialised with
 * other writers (ts_profile_replace).  0, also when there was nothing to
 * save, or -1 with the file untouched. */
int ts_learned_save(const char *path);

/* At the profile's first load with TSSHIM_LEARN_SAVE=1: ts_learned_load,
 * and ts_learned_save at exit (silent unless TSSHIM_VERBOSE). */
void ts_learned_store_start(const char *path);

/* Merges what this process learned into the file ts_learned_store_start
 * read (nothing when it was not called): a step of the exit sequence
 * (src/entry/lifecycle.c). */
void ts_learned_store_save(void);

#endif
