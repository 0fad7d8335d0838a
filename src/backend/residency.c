/* The residency probe: where a call's operands live, asked of the plugin
 * only once an operand can be device memory. */
#include "backend/gpu_backend.h"

#include <stdatomic.h>

#include "backend/backend_state.h"

void ts_gpu_residency(ts_call *c)
{
    c->res_a = c->res_b = c->res_c = TS_MEM_HOST;
    c->device = -1;
    /* While the background start runs, the CUDA objects in the process may
     * all be the start's own (own_adds, and the driver's parts it loads as
     * it starts): then no operand is device memory, and the call does not
     * wait for the start.  The full walk runs only once the count moved. */
    unsigned long long own = atomic_load(&ts_backend.own_adds);
    if (own && !ts_gpu_ready() && (ts_backend_loader_adds() == own || ts_backend_only_driver_parts_added()))
        return;
    const ts_gpu_ops *g = ts_gpu();
    if (g)
        g->residency(c);
}
