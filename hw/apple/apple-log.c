/*
 * Log lines of the Apple coprocessor devices, naming the instance
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/apple/apple-log.h"

void apple_log_mask(int mask, Object *obj, const char *fmt, ...)
{
    g_autofree char *path = NULL;
    g_autofree char *msg = NULL;
    va_list ap;

    if (!qemu_loglevel_mask(mask)) {
        return;
    }
    path = object_get_canonical_path(obj);
    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qemu_log("%s: %s", path, msg);
}
