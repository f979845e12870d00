// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: user VMs.  VM_CREATE checks the kernel range userspace reserves
 * (inside [vm_start, vm_end), at least vm_kernel_min_size, 16 KiB
 * aligned) and maps a zeroed page at IOVA_UNK_PAGE just above vm_end, as
 * drm/asahi does.  VM_BIND applies its ops one at a time in order, with no
 * rollback, through DRM GPUVM's split/merge (binding over a mapping
 * replaces it); each step writes or clears the VM's UAT page tables
 * (asahi_mmu.c).  VM_DESTROY unmaps every user mapping at once, even if
 * objects still hold the VM.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/asahi_drm.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>

#include "asahi_drv.h"

/* What one map or unmap needs in the GPUVM callbacks */
struct asahi_bind_ctx {
	struct asahi_vm *vm;
	struct drm_gpuvm_bo *vm_bo;
	struct sg_table *sgt;
	u64 prot;
	bool single_page;
	/* Preallocated: one new mapping, two remap remainders */
	struct drm_gpuva *va[3];
	int ret;
};

static struct drm_gpuva *asahi_bind_ctx_va(struct asahi_bind_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctx->va); i++) {
		struct drm_gpuva *va = ctx->va[i];

		if (va) {
			ctx->va[i] = NULL;
			return va;
		}
	}
	return NULL;
}

static int asahi_bind_ctx_prealloc(struct asahi_bind_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctx->va); i++) {
		ctx->va[i] = kzalloc_obj(*ctx->va[i]);
		if (!ctx->va[i])
			return -ENOMEM;
	}
	return 0;
}

static void asahi_bind_ctx_cleanup(struct asahi_bind_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctx->va); i++)
		kfree(ctx->va[i]);
}

static int asahi_vm_step_map(struct drm_gpuva_op *op, void *priv)
{
	struct asahi_bind_ctx *ctx = priv;
	struct drm_gpuva *va = asahi_bind_ctx_va(ctx);
	int ret;

	if (WARN_ON(!va))
		return -ENOMEM;
	ret = asahi_mmu_map(&ctx->vm->mmu, op->map.va.addr, ctx->sgt,
			    op->map.gem.offset, op->map.va.range, ctx->prot,
			    ctx->single_page);
	if (ret) {
		asahi_mmu_unmap(&ctx->vm->mmu, op->map.va.addr,
				op->map.va.range);
		kfree(va);
		return ret;
	}
	drm_gpuva_map(&ctx->vm->base, va, &op->map);
	drm_gpuva_link(va, ctx->vm_bo);
	return 0;
}

/* Part of a mapping goes: clear its PTEs, keep what stays around it */
static int asahi_vm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct asahi_bind_ctx *ctx = priv;
	struct drm_gpuva_op_remap *r = &op->remap;
	struct drm_gpuva *old = r->unmap->va;
	u64 start = old->va.addr, end = old->va.addr + old->va.range;
	struct drm_gpuva *prev = NULL, *next = NULL;

	if (r->prev) {
		start = r->prev->va.addr + r->prev->va.range;
		prev = asahi_bind_ctx_va(ctx);
	}
	if (r->next) {
		end = r->next->va.addr;
		next = asahi_bind_ctx_va(ctx);
	}
	if (WARN_ON((r->prev && !prev) || (r->next && !next))) {
		kfree(prev);
		kfree(next);
		return -ENOMEM;
	}
	asahi_mmu_unmap(&ctx->vm->mmu, start, end - start);
	drm_gpuva_remap(prev, next, r);
	if (prev)
		drm_gpuva_link(prev, old->vm_bo);
	if (next)
		drm_gpuva_link(next, old->vm_bo);
	drm_gpuva_unlink(old);
	kfree(old);
	return 0;
}

static int asahi_vm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct asahi_bind_ctx *ctx = priv;
	struct drm_gpuva *va = op->unmap.va;

	asahi_mmu_unmap(&ctx->vm->mmu, va->va.addr, va->va.range);
	drm_gpuva_unmap(&op->unmap);
	drm_gpuva_unlink(va);
	kfree(va);
	return 0;
}

static void asahi_vm_free(struct drm_gpuvm *gpuvm)
{
	struct asahi_vm *vm = to_asahi_vm(gpuvm);

	asahi_mmu_fini(&vm->mmu);
	if (vm->unk_page)
		__free_pages(vm->unk_page, get_order(UAT_PAGE_SIZE));
	mutex_destroy(&vm->bind_lock);
	kfree(vm);
}

static const struct drm_gpuvm_ops asahi_vm_ops = {
	.vm_free = asahi_vm_free,
	.sm_step_map = asahi_vm_step_map,
	.sm_step_remap = asahi_vm_step_remap,
	.sm_step_unmap = asahi_vm_step_unmap,
};

void asahi_vm_put(struct asahi_vm *vm)
{
	drm_gpuvm_put(&vm->base);
}

/* The file's VM id, with a reference; NULL if none */
struct asahi_vm *asahi_vm_lookup(struct asahi_file *afile, u32 id)
{
	struct asahi_vm *vm;

	xa_lock(&afile->vms);
	vm = xa_load(&afile->vms, id);
	if (vm)
		drm_gpuvm_get(&vm->base);
	xa_unlock(&afile->vms);
	return vm;
}

/* Unmaps [addr, addr + range) with the locks GPUVM wants */
/*
 * Unmapping can leave drm_exec with the last reference to a BO, which
 * drm_exec_fini() would then free (taking its resv lock) while other
 * resv locks are still held: lockdep's recursive locking of
 * reservation_ww_class_mutex, found by the UAPI fuzzer.  A reference to
 * each locked object is held until all are unlocked.
 */
static struct drm_gem_object **asahi_exec_hold(struct drm_exec *exec,
					       unsigned int *n)
{
	struct drm_gem_object **held, *obj;

	*n = 0;
	held = kvmalloc_array(exec->num_objects ?: 1, sizeof(*held),
			      GFP_KERNEL);
	if (!held)
		return NULL;
	drm_exec_for_each_locked_object(exec, obj) {
		drm_gem_object_get(obj);
		held[(*n)++] = obj;
	}
	return held;
}

static void asahi_exec_release(struct drm_gem_object **held, unsigned int n)
{
	while (n--)
		drm_gem_object_put(held[n]);
	kvfree(held);
}

static int asahi_vm_unmap_range(struct asahi_vm *vm, u64 addr, u64 range)
{
	struct asahi_bind_ctx ctx = { .vm = vm };
	struct drm_gem_object **held = NULL;
	unsigned int nheld = 0;
	struct drm_exec exec;
	int ret = 0;

	if (!range)
		return 0;
	ret = asahi_bind_ctx_prealloc(&ctx);
	if (ret)
		goto out;
	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, vm->base.r_obj);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;
		ret = drm_gpuvm_sm_unmap_exec_lock(&vm->base, &exec, addr,
						   range);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;
	}
	if (!ret) {
		held = asahi_exec_hold(&exec, &nheld);
		if (!held)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = drm_gpuvm_sm_unmap(&vm->base, &ctx, addr, range);
	drm_exec_fini(&exec);
	if (held)
		asahi_exec_release(held, nheld);
out:
	asahi_bind_ctx_cleanup(&ctx);
	return ret;
}

static int asahi_vm_map(struct asahi_vm *vm, struct drm_gem_object *obj,
			u64 offset, u64 addr, u64 range, u64 prot,
			bool single_page)
{
	struct drm_gem_shmem_object *shmem = to_drm_gem_shmem_obj(obj);
	struct asahi_bind_ctx ctx = {
		.vm = vm, .prot = prot, .single_page = single_page,
	};
	struct drm_gpuvm_map_req req = {
		.map.va.addr = addr,
		.map.va.range = range,
		.map.gem.obj = obj,
		.map.gem.offset = offset,
	};
	struct drm_gem_object **held = NULL;
	unsigned int nheld = 0;
	struct drm_exec exec;
	int ret;

	/*
	 * Binding pins all of the object's pages, however little of it is
	 * bound: an imported object larger than the memory (GEM_CREATE
	 * refuses those) would deadlock the OOM killer
	 */
	if (obj->size >> PAGE_SHIFT > totalram_pages())
		return -ENOMEM;
	/* Pins the pages until the object is freed; takes the resv lock */
	ctx.sgt = drm_gem_shmem_get_pages_sgt(shmem);
	if (IS_ERR(ctx.sgt))
		return PTR_ERR(ctx.sgt);
	ret = asahi_bind_ctx_prealloc(&ctx);
	if (ret)
		goto out;

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES, 0);
	drm_exec_until_all_locked(&exec) {
		ret = drm_exec_lock_obj(&exec, vm->base.r_obj);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;
		ret = drm_gpuvm_sm_map_exec_lock(&vm->base, &exec, 1, &req);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;
	}
	if (!ret) {
		/* Not in the fence signalling path: may allocate here */
		ctx.vm_bo = drm_gpuvm_bo_obtain_locked(&vm->base, obj);
		if (IS_ERR(ctx.vm_bo))
			ret = PTR_ERR(ctx.vm_bo);
	}
	if (!ret) {
		held = asahi_exec_hold(&exec, &nheld);
		if (!held)
			ret = -ENOMEM;
		else
			ret = drm_gpuvm_sm_map(&vm->base, &ctx, &req);
		drm_gpuvm_bo_put(ctx.vm_bo);
	}
	drm_exec_fini(&exec);
	if (held)
		asahi_exec_release(held, nheld);
out:
	asahi_bind_ctx_cleanup(&ctx);
	return ret;
}

/* GEM handle close: every mapping of obj in vm goes */
void asahi_vm_unmap_bo(struct asahi_vm *vm, struct drm_gem_object *obj)
{
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *va;

	mutex_lock(&vm->bind_lock);
	for (;;) {
		u64 addr = 0, range = 0;

		dma_resv_lock(obj->resv, NULL);
		vm_bo = drm_gpuvm_bo_find(&vm->base, obj);
		if (vm_bo) {
			drm_gpuvm_bo_for_each_va(va, vm_bo) {
				addr = va->va.addr;
				range = va->va.range;
				break;
			}
			drm_gpuvm_bo_put(vm_bo);
		}
		dma_resv_unlock(obj->resv);
		if (!range || asahi_vm_unmap_range(vm, addr, range))
			break;
	}
	mutex_unlock(&vm->bind_lock);
}

int asahi_ioctl_vm_create(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct asahi_device *adev = to_asahi_device(drm);
	struct asahi_file *afile = file->driver_priv;
	struct drm_asahi_vm_create *args = data;
	struct drm_gem_object *r_obj;
	struct sg_table sgt;
	struct asahi_vm *vm;
	u32 id;
	int ret;

	if (args->kernel_start < ASAHI_VM_START ||
	    args->kernel_end > ASAHI_VM_END ||
	    args->kernel_end < args->kernel_start ||
	    args->kernel_end - args->kernel_start < ASAHI_VM_KERNEL_MIN ||
	    !IS_ALIGNED(args->kernel_start, UAT_PAGE_SIZE) ||
	    !IS_ALIGNED(args->kernel_end, UAT_PAGE_SIZE))
		return -EINVAL;

	vm = kzalloc_obj(*vm);
	if (!vm)
		return -ENOMEM;
	mutex_init(&vm->bind_lock);
	vm->kernel_start = args->kernel_start;
	vm->kernel_end = args->kernel_end;
	vm->mmu.id = atomic_inc_return(&adev->vm_ids);
	ret = asahi_mmu_init(adev, &vm->mmu);
	if (ret) {
		mutex_destroy(&vm->bind_lock);
		kfree(vm);
		return ret;
	}
	r_obj = drm_gpuvm_resv_object_alloc(drm);
	if (!r_obj) {
		asahi_mmu_fini(&vm->mmu);
		mutex_destroy(&vm->bind_lock);
		kfree(vm);
		return -ENOMEM;
	}
	/* From here on vm_free undoes everything */
	drm_gpuvm_init(&vm->base, "asahi-vm", 0, drm, r_obj, ASAHI_VM_START,
		       ASAHI_VM_END - ASAHI_VM_START,
		       args->kernel_start,
		       args->kernel_end - args->kernel_start, &asahi_vm_ops);
	drm_gem_object_put(r_obj);

	/* The zeroed page at IOVA_UNK_PAGE, GPU read/write */
	vm->unk_page = alloc_pages(GFP_KERNEL | __GFP_ZERO,
				   get_order(UAT_PAGE_SIZE));
	ret = vm->unk_page ? sg_alloc_table(&sgt, 1, GFP_KERNEL) : -ENOMEM;
	if (!ret) {
		sg_set_page(sgt.sgl, vm->unk_page, UAT_PAGE_SIZE, 0);
		ret = asahi_mmu_map(&vm->mmu, ASAHI_VM_UNK_PAGE, &sgt, 0,
				    UAT_PAGE_SIZE, UAT_PROT_GPU_SHARED_RW, false);
		sg_free_table(&sgt);
	}
	if (!ret)
		ret = xa_alloc(&afile->vms, &id, vm, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		drm_gpuvm_put(&vm->base);
		return ret;
	}
	args->vm_id = id;
	return 0;
}

int asahi_ioctl_vm_destroy(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct asahi_file *afile = file->driver_priv;
	struct drm_asahi_vm_destroy *args = data;
	struct asahi_vm *vm = xa_erase(&afile->vms, args->vm_id);

	if (!vm)
		return -ENOENT;
	asahi_vm_release(vm);
	return 0;
}

/* The file lets a VM go: every user mapping goes with it */
void asahi_vm_release(struct asahi_vm *vm)
{
	mutex_lock(&vm->bind_lock);
	asahi_vm_unmap_range(vm, ASAHI_VM_START, vm->kernel_start -
			     ASAHI_VM_START);
	asahi_vm_unmap_range(vm, vm->kernel_end, ASAHI_VM_END -
			     vm->kernel_end);
	mutex_unlock(&vm->bind_lock);
	drm_gpuvm_put(&vm->base);
}

static int asahi_vm_bind_op(struct drm_file *file, struct asahi_vm *vm,
			    const struct drm_asahi_gem_bind_op *op)
{
	u64 end = op->addr + op->range;
	struct drm_gem_object *obj;
	u64 prot, accessed;
	int ret;

	if (!IS_ALIGNED(op->addr, UAT_PAGE_SIZE) ||
	    !IS_ALIGNED(op->range, UAT_PAGE_SIZE) ||
	    !IS_ALIGNED(op->offset, UAT_PAGE_SIZE))
		return -EINVAL;
	if (end < op->addr || op->addr < ASAHI_VM_START || end > ASAHI_VM_END ||
	    (op->addr < vm->kernel_end && end > vm->kernel_start))
		return -EINVAL;

	if (op->flags & DRM_ASAHI_BIND_UNBIND) {
		if (op->flags != DRM_ASAHI_BIND_UNBIND || op->offset ||
		    op->handle)
			return -EINVAL;
		mutex_lock(&vm->bind_lock);
		ret = asahi_vm_unmap_range(vm, op->addr, op->range);
		mutex_unlock(&vm->bind_lock);
		return ret;
	}

	if (op->flags & ~(DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE |
			  DRM_ASAHI_BIND_SINGLE_PAGE))
		return -EINVAL;
	switch (op->flags & (DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE)) {
	case DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE:
		prot = UAT_PROT_GPU_SHARED_RW;
		break;
	case DRM_ASAHI_BIND_READ:
		prot = UAT_PROT_GPU_SHARED_RO;
		break;
	case DRM_ASAHI_BIND_WRITE:
		prot = UAT_PROT_GPU_SHARED_WO;
		break;
	default:
		return -EINVAL;
	}
	if (!op->range)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, op->handle);
	if (!obj)
		return -ENOENT;
	accessed = op->flags & DRM_ASAHI_BIND_SINGLE_PAGE ? UAT_PAGE_SIZE - 1 :
		   op->range;
	if (op->offset + accessed < op->offset ||
	    op->offset + accessed > obj->size) {
		ret = -EINVAL;
	} else if (to_asahi_bo(obj)->vm && to_asahi_bo(obj)->vm != vm) {
		/* A VM-private object outside its own VM */
		ret = -EINVAL;
	} else {
		mutex_lock(&vm->bind_lock);
		ret = asahi_vm_map(vm, obj, op->offset, op->addr, op->range,
				   prot,
				   op->flags & DRM_ASAHI_BIND_SINGLE_PAGE);
		mutex_unlock(&vm->bind_lock);
	}
	drm_gem_object_put(obj);
	return ret;
}

int asahi_ioctl_vm_bind(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_asahi_vm_bind *args = data;
	struct drm_asahi_gem_bind_op op;
	struct asahi_vm *vm;
	unsigned int i;
	int ret = 0;

	if (!args->stride || args->pad)
		return -EINVAL;
	for (i = 0; i < args->num_binds && !ret; i++) {
		u64 uptr = args->userptr + (u64)i * args->stride;

		/* Shorter ops are zero-extended, longer ones truncated */
		memset(&op, 0, sizeof(op));
		if (copy_from_user(&op, u64_to_user_ptr(uptr),
				   min_t(u32, args->stride, sizeof(op))))
			return -EFAULT;
		vm = asahi_vm_lookup(file->driver_priv, args->vm_id);
		if (!vm)
			return -ENOENT;
		ret = asahi_vm_bind_op(file, vm, &op);
		asahi_vm_put(vm);
	}
	return ret;
}
