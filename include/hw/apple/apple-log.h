/*
 * Log lines of the Apple coprocessor devices, naming the instance
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_APPLE_APPLE_LOG_H
#define HW_APPLE_APPLE_LOG_H

#include "qom/object.h"

/*
 * qemu_log_mask(@mask, ...) with the QOM path of @obj in front; the path
 * is built, and freed, only when @mask is being logged
 */
void apple_log_mask(int mask, Object *obj, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

#endif
