/* The machine profile of the cost model as a text file, one `key value`
 * per line ('#' starts a comment), written by tsshim-calibrate.  Where it
 * lives: TSSHIM_PROFILE, else $XDG_CACHE_HOME/tsshim/profile, else
 * ~/.cache/tsshim/profile.  Keys the file lacks keep their built-in
 * defaults; a missing or unreadable file is not an error. */
#ifndef TS_PROFILE_H
#define TS_PROFILE_H

#include <stddef.h>
#include <stdio.h>
#include "common/cost_model.h"

/* The profile file's path: `configured` when not empty, else the cache
 * location from the environment; -1 when there is none (no HOME). */
int ts_profile_path(const char *configured, char *out, size_t size);

/* Overwrites the values of p that the file sets; returns how many it set,
 * or -1 when the file cannot be read.  Lines that are not a known key with
 * a positive number are skipped. */
int ts_profile_read(const char *path, ts_profile *p);

/* Writes every key, replacing the file (ts_profile_replace): a new
 * calibration drops what the old file held, learned corrections
 * included.  0 or -1. */
int ts_profile_write(const char *path, const ts_profile *p);

/* Replaces the file with what write(out, old, arg) writes (old: the
 * current file, NULL when there is none; write returns 0 or -1): under an
 * exclusive lock on PATH.lock, so that writers at once (the ranks of a
 * job) follow one another; into a temporary file of the same directory,
 * synced, then renamed over the file, so a reader sees the old file or
 * the new one, never a part.  A link is followed; a name that is not a
 * regular file (a device) is refused.  Creates the directory if needed.  Waits
 * about 2 s at most for the lock.  0, or -1 with the file untouched. */
int ts_profile_replace(const char *name, int (*write)(FILE *out, FILE *old, void *arg), void *arg);

/* For a write of ts_profile_replace: copies old's lines (none when old is
 * NULL) to out, less those drop(line, arg) is true for, each ending in a
 * newline (a cut last line gets one). */
void ts_profile_copy_lines(FILE *out, FILE *old, int (*drop)(const char *line, void *arg), void *arg);

/* The profile in force (profile.c): the calibration file, else the defaults. */
const ts_profile *ts_profile_get(void);

#endif
