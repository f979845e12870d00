// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: a DRM render driver for the Apple M1 GPU (t8103, G13G) with the
 * upstream asahi UAPI, for QEMU's apple-m1 machine.  Written in C after the
 * design of the Rust drm/asahi driver: at probe, RTKit is booted and the
 * GPU firmware initialised (asahi_rtkit.c, asahi_fw.c), then a render node
 * named "asahi" is registered.
 *
 * This file: the platform driver, the DRM driver and its ioctl table,
 * GET_PARAMS and GET_TIME.  With manual_boot=1 the probe stops before
 * the firmware boot, for the self-tests (asahi_selftest.c) to drive it.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/dma-mapping.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <clocksource/arm_arch_timer.h>

#include <drm/asahi_drm.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>

#include "asahi_drv.h"

/* What drm/asahi reports on t8103 beyond the ID registers */
#define ASAHI_CHIP_ID			0x8103
#define ASAHI_MAX_FREQUENCY_KHZ		1000000
#define ASAHI_MAX_COMMANDS		64
#define ASAHI_MAX_ATTACHMENTS		16
#define ASAHI_TIMESTAMP_HZ		1000000000ULL
/* The CPU counter (and the firmware's timestamps) run at 24 MHz */
#define ASAHI_BASE_CLOCK_HZ		24000000ULL

/* drm/asahi's default fault_control: soft faults on */
static unsigned int fault_control = 0xb;
module_param(fault_control, uint, 0444);
MODULE_PARM_DESC(fault_control, "Fault control (0xb: soft faults)");

/* Probe without booting the firmware: the self-tests boot it */
static bool manual_boot;
module_param(manual_boot, bool, 0444);
MODULE_PARM_DESC(manual_boot,
		 "Leave the firmware boot to the selftest attribute (no render node)");

/* The firmware crashed: nothing it promised will come */
bool asahi_crashed(struct asahi_device *adev)
{
	/* Read at every SUBMIT and run_job: without the lock they share */
	return READ_ONCE(adev->crashed);
}

/* Finds the GPU node's reserved-memory region called name */
int asahi_region(struct device *dev, const char *name, struct resource *res)
{
	struct device_node *np;
	int idx, ret;

	idx = of_property_match_string(dev->of_node, "memory-region-names",
				       name);
	if (idx < 0) {
		dev_err(dev, "no \"%s\" memory region\n", name);
		return -ENODEV;
	}
	np = of_parse_phandle(dev->of_node, "memory-region", idx);
	if (!np) {
		dev_err(dev, "bad memory-region for \"%s\"\n",
			name);
		return -ENODEV;
	}
	ret = of_address_to_resource(np, 0, res);
	of_node_put(np);
	if (ret)
		dev_err(dev, "no address for region \"%s\": %d\n",
			name, ret);
	return ret;
}

static int asahi_ioctl_get_params(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct asahi_device *adev = to_asahi_device(drm);
	struct drm_asahi_get_params *args = data;
	struct drm_asahi_params_global params = { 0 };
	size_t size;

	if (args->param_group || args->pad)
		return -EINVAL;
	if (asahi_crashed(adev))
		return -ENODEV;

	if (fault_control == 0xb)
		params.features |= DRM_ASAHI_FEATURE_SOFT_FAULTS;
	params.gpu_generation = adev->gpu_gen;
	params.gpu_variant = adev->gpu_variant;
	params.gpu_revision = adev->gpu_rev;
	params.chip_id = ASAHI_CHIP_ID;
	params.num_dies = 1;
	params.num_clusters_total = adev->num_clusters;
	params.num_cores_per_cluster = adev->num_cores;
	params.max_frequency_khz = ASAHI_MAX_FREQUENCY_KHZ;
	params.core_masks[0] = adev->core_mask;
	params.vm_start = ASAHI_VM_START;
	params.vm_end = ASAHI_VM_END;
	params.vm_kernel_min_size = ASAHI_VM_KERNEL_MIN;
	params.max_commands_per_submission = ASAHI_MAX_COMMANDS;
	params.max_attachments = ASAHI_MAX_ATTACHMENTS;
	params.command_timestamp_frequency_hz = ASAHI_TIMESTAMP_HZ;

	/* Older userspace asks for less; the size is not written back */
	size = min_t(u64, args->size, sizeof(params));
	if (copy_to_user(u64_to_user_ptr(args->pointer), &params, size))
		return -EFAULT;
	return 0;
}

/* CPU counter ticks (24 MHz) to nanoseconds: x 125 / 3 */
u64 asahi_ticks_to_ns(u64 ticks)
{
	return div_u64(ticks * 125, 3);
}

static int asahi_ioctl_get_time(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct drm_asahi_get_time *args = data;

	if (args->flags)
		return -EINVAL;
	args->gpu_timestamp = asahi_ticks_to_ns(arch_timer_read_counter());
	return 0;
}

static int asahi_open(struct drm_device *drm, struct drm_file *file)
{
	struct asahi_file *afile = kzalloc_obj(*afile);

	if (!afile)
		return -ENOMEM;
	xa_init_flags(&afile->vms, XA_FLAGS_ALLOC1);
	xa_init_flags(&afile->queues, XA_FLAGS_ALLOC1);
	xa_init_flags(&afile->ts_objects, XA_FLAGS_ALLOC1);
	file->driver_priv = afile;
	return 0;
}

static void asahi_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct asahi_file *afile = file->driver_priv;
	struct asahi_vm *vm;
	unsigned long id;

	/* Queues first: their jobs hold the VMs they run in */
	asahi_queues_release(afile);
	asahi_ts_objs_release(afile);
	/* GEM handles are gone by now: each unbound itself from our VMs */
	xa_for_each(&afile->vms, id, vm)
		asahi_vm_release(vm);
	xa_destroy(&afile->vms);
	xa_destroy(&afile->queues);
	xa_destroy(&afile->ts_objects);
	kfree(afile);
}

#define ASAHI_IOCTL(n, f, fl) \
	DRM_IOCTL_DEF_DRV(ASAHI_##n, f, (fl) | DRM_RENDER_ALLOW)

static const struct drm_ioctl_desc asahi_ioctls[] = {
	ASAHI_IOCTL(GET_PARAMS, asahi_ioctl_get_params, 0),
	ASAHI_IOCTL(GET_TIME, asahi_ioctl_get_time, DRM_AUTH),
	ASAHI_IOCTL(VM_CREATE, asahi_ioctl_vm_create, DRM_AUTH),
	ASAHI_IOCTL(VM_DESTROY, asahi_ioctl_vm_destroy, DRM_AUTH),
	ASAHI_IOCTL(VM_BIND, asahi_ioctl_vm_bind, DRM_AUTH),
	ASAHI_IOCTL(GEM_CREATE, asahi_ioctl_gem_create, DRM_AUTH),
	ASAHI_IOCTL(GEM_MMAP_OFFSET, asahi_ioctl_gem_mmap_offset, DRM_AUTH),
	ASAHI_IOCTL(GEM_BIND_OBJECT, asahi_ioctl_gem_bind_object, DRM_AUTH),
	ASAHI_IOCTL(QUEUE_CREATE, asahi_ioctl_queue_create, DRM_AUTH),
	ASAHI_IOCTL(QUEUE_DESTROY, asahi_ioctl_queue_destroy, DRM_AUTH),
	ASAHI_IOCTL(SUBMIT, asahi_ioctl_submit, DRM_AUTH),
};

DEFINE_DRM_GEM_FOPS(asahi_fops);

static const struct drm_driver asahi_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = asahi_open,
	.postclose = asahi_postclose,
	.ioctls = asahi_ioctls,
	.num_ioctls = ARRAY_SIZE(asahi_ioctls),
	.fops = &asahi_fops,
	.gem_create_object = asahi_gem_create_object,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.name = "asahi",
	.desc = "Apple AGX Graphics",
	.major = 0,
	.minor = 0,
	.patchlevel = 0,
};

static int asahi_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct asahi_device *adev;
	int ret;

	adev = devm_drm_dev_alloc(dev, &asahi_drm_driver, struct asahi_device,
				  drm);
	if (IS_ERR(adev))
		return PTR_ERR(adev);
	adev->dev = dev;
	spin_lock_init(&adev->lock);
	atomic_set(&adev->vm_ids, 1);
	atomic_set(&adev->queue_ids, 1);
	init_waitqueue_head(&adev->slot_wait);
	adev->manual_boot = manual_boot;
	ret = devm_mutex_init(dev, &adev->cmd_lock);
	if (!ret)
		ret = devm_mutex_init(dev, &adev->map_lock);
	if (!ret)
		ret = devm_mutex_init(dev, &adev->gpu_lock);
	if (!ret)
		ret = devm_mutex_init(dev, &adev->slot_lock);
	if (ret)
		return ret;
	adev->sched_wq = drmm_alloc_ordered_workqueue(&adev->drm, "asahi-sched",
						      WQ_MEM_RECLAIM);
	if (IS_ERR(adev->sched_wq))
		return PTR_ERR(adev->sched_wq);
	platform_set_drvdata(pdev, adev);
	/* The UAT takes physical addresses of up to 42 bits; no IOMMU */
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(42));
	if (ret)
		return ret;

	/* The kernel's UAT context first: RTKit maps its buffers there */
	ret = asahi_kuat_init(adev);
	if (ret)
		return ret;
	ret = asahi_gpu_add_hooks(adev);
	if (ret)
		return ret;
	asahi_selftest_add_hooks(adev);
	ret = asahi_rtkit_init(adev);
	if (ret)
		return ret;
	if (adev->manual_boot) {
		dev_info(dev, "asahi: probed, firmware not booted (manual_boot)\n");
		return 0;
	}
	ret = asahi_rtkit_boot(adev);
	if (ret)
		return dev_err_probe(dev, ret, "RTKit boot failed\n");
	ret = asahi_gpu_init(adev);
	if (ret)
		return dev_err_probe(dev, ret, "GPU firmware init failed\n");

	ret = drm_dev_register(&adev->drm, 0);
	if (ret)
		return ret;
	dev_info(dev, "asahi: G%u%c rev %02x, %u core(s), render node ready\n",
		 adev->gpu_gen, adev->gpu_variant, adev->gpu_rev,
		 hweight32(adev->core_mask));
	return 0;
}

static void asahi_remove(struct platform_device *pdev)
{
	struct asahi_device *adev = platform_get_drvdata(pdev);

	if (!adev->manual_boot)
		drm_dev_unregister(&adev->drm);
}

static const struct of_device_id asahi_of_match[] = {
	{ .compatible = "apple,agx-g13g" },
	{ .compatible = "apple,agx-t8103" },
	{ }
};
MODULE_DEVICE_TABLE(of, asahi_of_match);

static struct platform_driver asahi_platform_driver = {
	.driver = {
		.name = "asahi",
		.of_match_table = asahi_of_match,
		.dev_groups = asahi_dev_groups,
	},
	.probe = asahi_probe,
	.remove = asahi_remove,
};
module_platform_driver(asahi_platform_driver);

MODULE_DESCRIPTION("Apple AGX GPU (M1) render driver with the asahi UAPI");
MODULE_LICENSE("GPL");
