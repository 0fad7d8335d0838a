/* The one instance of the backend's mutable state (backend_state.h). */
#include "backend/backend_state.h"

ts_backend_state ts_backend = {
    .start_state = START_IDLE,
    .starter_state = STARTER_NONE,
    .startup_once = PTHREAD_ONCE_INIT,
    .devices_known = -1,
};
