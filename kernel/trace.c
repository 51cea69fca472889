// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The module's tracepoints, defined once (trace.h lists them). */
#define CREATE_TRACE_POINTS
#include "trace.h"
