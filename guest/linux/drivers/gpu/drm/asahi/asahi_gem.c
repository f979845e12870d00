// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: GEM objects.  shmem-backed, sizes rounded up to the GPU's 16 KiB
 * page; write-combined CPU mappings unless WRITEBACK asks for cached ones.
 * A VM_PRIVATE object shares its VM's reservation object and cannot be
 * exported.  Closing a handle unbinds the object from every VM of the
 * file, as drm/asahi does (Mesa relies on it).
 *
 * GEM_BIND_OBJECT maps a whole (shared) object firmware read/write into
 * the kernel context, in drm/asahi's timestamp range at
 * 0xffffffae_10000000, for the firmware to write user timestamps to.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
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
	/*
	 * Mapping or binding pins all of an object's pages, and the
	 * allocation does not stop for a fatal signal: an object larger than
	 * the memory deadlocks the OOM killer
	 */
	if (args->size >> PAGE_SHIFT > totalram_pages())
		return -ENOMEM;
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

static void asahi_ts_obj_release(struct kref *ref)
{
	struct asahi_ts_obj *ts = container_of(ref, struct asahi_ts_obj, ref);
	struct asahi_device *adev = ts->adev;
	unsigned int first = (ts->va - ASAHI_TS_BASE) >> UAT_PAGE_SHIFT;
	unsigned int n = ts->size >> UAT_PAGE_SHIFT;

	asahi_kuat_unmap(adev, ts->va, n);
	mutex_lock(&adev->map_lock);
	bitmap_clear(adev->ts_pages, first, n);
	mutex_unlock(&adev->map_lock);
	drm_gem_object_put(ts->obj);
	kfree(ts);
}

void asahi_ts_obj_put(struct asahi_ts_obj *ts)
{
	if (ts)
		kref_put(&ts->ref, asahi_ts_obj_release);
}

struct asahi_ts_obj *asahi_ts_obj_lookup(struct asahi_file *afile, u32 id)
{
	struct asahi_ts_obj *ts;

	xa_lock(&afile->ts_objects);
	ts = xa_load(&afile->ts_objects, id);
	if (ts)
		kref_get(&ts->ref);
	xa_unlock(&afile->ts_objects);
	return ts;
}

void asahi_ts_objs_release(struct asahi_file *afile)
{
	struct asahi_ts_obj *ts;
	unsigned long id;

	xa_for_each(&afile->ts_objects, id, ts)
		asahi_ts_obj_put(ts);
}

static int asahi_ts_obj_map(struct asahi_device *adev, struct asahi_ts_obj *ts,
			    u64 offset)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(ts->obj);
	unsigned int n = ts->size >> UAT_PAGE_SHIFT, first, done = 0;
	struct sg_table *sgt;
	struct scatterlist *sg;
	unsigned int i;
	int ret = 0;

	sgt = drm_gem_shmem_get_pages_sgt(shmem);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	mutex_lock(&adev->map_lock);
	first = bitmap_find_next_zero_area(adev->ts_pages, ASAHI_TS_PAGES, 0,
					   n, 0);
	if (first >= ASAHI_TS_PAGES) {
		mutex_unlock(&adev->map_lock);
		return -ENOSPC;
	}
	bitmap_set(adev->ts_pages, first, n);
	mutex_unlock(&adev->map_lock);
	ts->va = ASAHI_TS_BASE + ((u64)first << UAT_PAGE_SHIFT);

	/* The object's pages from offset on, one GPU page at a time */
	for_each_sgtable_sg(sgt, sg, i) {
		u64 len = sg->length, skip = 0;

		if (offset >= len) {
			offset -= len;
			continue;
		}
		skip = offset;
		offset = 0;
		for (; skip < len && done < n && !ret;
		     skip += UAT_PAGE_SIZE, done++)
			ret = asahi_kuat_map(adev, ts->va +
					     ((u64)done << UAT_PAGE_SHIFT),
					     sg_phys(sg) + skip, 1,
					     UAT_PROT_FW_SHARED_RW);
		if (done == n || ret)
			break;
	}
	if (!ret && done != n)
		ret = -EINVAL;
	if (ret) {
		asahi_kuat_unmap(adev, ts->va, done);
		mutex_lock(&adev->map_lock);
		bitmap_clear(adev->ts_pages, first, n);
		mutex_unlock(&adev->map_lock);
	}
	return ret;
}

int asahi_ioctl_gem_bind_object(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct asahi_device *adev = to_asahi_device(drm);
	struct asahi_file *afile = file->driver_priv;
	struct drm_asahi_gem_bind_object *args = data;
	struct drm_gem_object *obj;
	struct asahi_ts_obj *ts;
	u32 id;
	int ret;

	if (args->pad || args->vm_id)
		return -EINVAL;
	if (args->op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND) {
		if (args->range || args->offset || args->flags || args->handle)
			return -EINVAL;
		ts = xa_erase(&afile->ts_objects, args->object_handle);
		if (!ts)
			return -ENOENT;
		/* Jobs that still use it hold their own references */
		asahi_ts_obj_put(ts);
		return 0;
	}
	if (args->op != DRM_ASAHI_BIND_OBJECT_OP_BIND)
		return -EINVAL;
	if (!IS_ALIGNED(args->offset, UAT_PAGE_SIZE) ||
	    !IS_ALIGNED(args->range, UAT_PAGE_SIZE) || !args->range ||
	    args->flags != DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/* VM-private objects cannot go into the kernel context */
	if (args->offset + args->range < args->offset ||
	    args->offset + args->range > obj->size ||
	    to_asahi_bo(obj)->flags & DRM_ASAHI_GEM_VM_PRIVATE) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	ts = kzalloc_obj(*ts);
	if (!ts) {
		drm_gem_object_put(obj);
		return -ENOMEM;
	}
	kref_init(&ts->ref);
	ts->adev = adev;
	ts->obj = obj;
	ts->size = args->range;
	ret = asahi_ts_obj_map(adev, ts, args->offset);
	if (ret) {
		drm_gem_object_put(obj);
		kfree(ts);
		return ret;
	}
	ret = xa_alloc(&afile->ts_objects, &id, ts, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		asahi_ts_obj_put(ts);
		return ret;
	}
	args->object_handle = id;
	return 0;
}
