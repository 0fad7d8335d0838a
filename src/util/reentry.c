#include "util/reentry.h"

_Thread_local int ts_reentry_depth __attribute__((tls_model("initial-exec")));
