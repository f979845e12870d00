/*
 * qtest helper: wait for a migration to complete
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TESTS_QTEST_AGX_QTEST_MIGRATE_H
#define TESTS_QTEST_AGX_QTEST_MIGRATE_H

#include "libqtest.h"

/* Poll query-migrate on @qts until "completed" (10 s); fail on "failed" */
void agx_qtest_wait_migration(QTestState *qts);

#endif
