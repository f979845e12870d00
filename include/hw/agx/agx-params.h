/*
 * AGX firmware: the job parameter blocks a job's Start op hands the GPU
 *
 * When a job starts, the firmware reads the parameter blocks its Start op
 * points at (vertex: tiling parameters and parameters 1; fragment:
 * parameters 1 and 2; compute: parameters 1 and 2) and its Run record
 * (vertex parameters 2, fragment parameters 3, the record's own words),
 * and programs the GPU from them.  The model keeps what it read from the
 * last job of each pipe, for the host to see (apple-agx's vertex-params,
 * fragment-params and compute-params properties) and to check that the
 * driver placed each UAPI field where drm/asahi places it.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AGX_AGX_PARAMS_H
#define HW_AGX_AGX_PARAMS_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/agx/agx-services.h"

/* One field the host can name, e.g. "params1.vdm_ctrl_stream_base" */
typedef struct AgxParamsField {
    const char *name;
    uint8_t block;              /* AgxParamsBlock */
    uint8_t width;              /* bytes: 1, 2, 4 or 8 */
    uint32_t off[AGX_FW_NUM_VERSIONS];
} AgxParamsField;

/*
 * The Start op @op (already fetched) of the job @cmd_va on @pipe_type
 * starts: read its blocks.  A block the firmware cannot read crashes it,
 * as any firmware access does.
 */
bool agx_params_read(AgxFw *fw, unsigned pipe_type, uint64_t cmd_va,
                     const uint8_t *op);

/*
 * The same, into @pa rather than the pipe's record: what the firmware
 * reads of a job that is not on its pipe (a partial render reads the
 * render's fragment command while its vertex command runs, agx-vdm.h)
 */
bool agx_params_load(AgxFw *fw, unsigned pipe_type, uint64_t cmd_va,
                     const uint8_t *op, AgxParams *pa);

/* The fields of @pipe_type's blocks, NULL-terminated */
const AgxParamsField *agx_params_fields(unsigned pipe_type);

/* Field @name of what the pipe's last job was started with */
bool agx_params_get(const AgxFw *fw, unsigned pipe_type, const char *name,
                    uint64_t *val);

/* Field @name of @pa, blocks of a @pipe_type job */
bool agx_params_get_in(const AgxFw *fw, const AgxParams *pa,
                       unsigned pipe_type, const char *name, uint64_t *val);

/*
 * "name=0x... name=0x..." for every field, or "" before any job started;
 * g_free() it
 */
char *agx_params_format(const AgxFw *fw, unsigned pipe_type);

#endif
