// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: GEM objects.  shmem-backed, sizes rounded up to the GPU's 16 KiB
 * page; write-combined CPU mappings unless WRITEBACK asks for cached ones.
 * A VM_PRIVATE object shares its VM's reservation object and cannot be
 * exported.  Closing a handle unbinds the object from every VM of the
 * file, as drm/asahi does (Mesa relies on it).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/err.h>
#include <linux/slab.h>

#include <drm/asahi_drm.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_prime.h>

#include "asahi_drv.h"

static void asahi_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct asahi_file *afile = file->driver_priv;
	struct asahi_vm *vm;
	unsigned long id;

	xa_for_each(&afile->vms, id, vm)
		asahi_vm_unmap_bo(vm, obj);
}

static void asahi_gem_free(struct drm_gem_object *obj)
{
	struct asahi_bo *bo = to_asahi_bo(obj);
	struct asahi_vm *vm = bo->vm;

	drm_gem_shmem_free(&bo->base);
	if (vm)
		asahi_vm_put(vm);
}

static struct dma_buf *asahi_gem_export(struct drm_gem_object *obj, int flags)
{
	if (to_asahi_bo(obj)->flags & DRM_ASAHI_GEM_VM_PRIVATE)
		return ERR_PTR(-EINVAL);
	return drm_gem_prime_export(obj, flags);
}

static const struct drm_gem_object_funcs asahi_gem_funcs = {
	.free = asahi_gem_free,
	.close = asahi_gem_close,
	.print_info = drm_gem_shmem_object_print_info,
	.export = asahi_gem_export,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/* Also for imported objects (drm_gem_shmem_prime_import_sg_table) */
struct drm_gem_object *asahi_gem_create_object(struct drm_device *drm,
					       size_t size)
{
	struct asahi_bo *bo = kzalloc_obj(*bo);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.base.funcs = &asahi_gem_funcs;
	bo->base.map_wc = true;
	return &bo->base.base;
}

int asahi_ioctl_gem_create(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_asahi_gem_create *args = data;
	struct asahi_vm *vm = NULL;
	struct drm_gem_shmem_object *shmem;
	struct asahi_bo *bo;
	u32 handle;
	int ret;

	if (args->flags & ~(DRM_ASAHI_GEM_WRITEBACK | DRM_ASAHI_GEM_VM_PRIVATE))
		return -EINVAL;
	if (args->vm_id && !(args->flags & DRM_ASAHI_GEM_VM_PRIVATE))
		return -EINVAL;
	if (!args->size)
		return -EINVAL;
	if (args->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
		vm = asahi_vm_lookup(file->driver_priv, args->vm_id);
		if (!vm)
			return -ENOENT;
	}

	shmem = drm_gem_shmem_create(drm, round_up(args->size, UAT_PAGE_SIZE));
	if (IS_ERR(shmem)) {
		if (vm)
			asahi_vm_put(vm);
		return PTR_ERR(shmem);
	}
	bo = container_of(shmem, struct asahi_bo, base);
	bo->flags = args->flags;
	shmem->map_wc = !(args->flags & DRM_ASAHI_GEM_WRITEBACK);
	if (vm) {
		/* The VM's reference is dropped with the object */
		bo->vm = vm;
		shmem->base.resv = vm->base.r_obj->resv;
	}

	ret = drm_gem_handle_create(file, &shmem->base, &handle);
	drm_gem_object_put(&shmem->base);
	if (ret)
		return ret;
	args->handle = handle;
	return 0;
}

int asahi_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct drm_asahi_gem_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return ret;
}
