/* SYRK, HERK and TRSM forwarded to the CPU BLAS with the arguments as
 * received (ts_call.received), by the interface they came by. */
#ifndef TS_FORWARD_LEVEL3_H
#define TS_FORWARD_LEVEL3_H

#include "common/call.h"
#include "common/level3_args.h"

/* Routine r's arguments as received (a ts_*_f77_args or ts_*_cblas_args
 * of src/common/level3_args.h), forwarded untouched. */
void ts_forward_received(ts_routine r, const void *received);

/* The call's own arguments as received. */
void ts_forward_level3(const ts_call *c);

#endif
