/* lttng-tp.c - instantiates the probes of bench/lttng-tp.h. */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "lttng-tp.h"
