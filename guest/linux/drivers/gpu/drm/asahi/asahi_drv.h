/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * asahi: what the driver's files share: the device, its RTKit hooks
 * (asahi_rtkit.c), the UAT page tables of the kernel context and of VMs
 * (asahi_mmu.c), the firmware (asahi_fw.c), per-file state, GEM objects
 * (asahi_gem.c), VMs (asahi_vm.c).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef ASAHI_DRV_H
#define ASAHI_DRV_H

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/ioport.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_gpuvm.h>

/*
 * UAT (G13): 16 KiB pages and tables of 2048 descriptors; a 39-bit half is
 * resolved in three levels, VA[38:36], VA[35:25] and VA[24:14].
 */
#define UAT_PAGE_SHIFT		14
#define UAT_PAGE_SIZE		BIT(UAT_PAGE_SHIFT)
#define UAT_L0_SHIFT		36
#define UAT_L1_SHIFT		25
#define UAT_L0_ENTRIES		8
#define UAT_TABLE_ENTRIES	2048
#define UAT_INDEX(va, shift, n)	(((va) >> (shift)) & ((n) - 1))

#define UAT_PTE_VALID		(BIT_ULL(0) | BIT_ULL(1))	/* table/page */
#define UAT_PTE_ATTR(n)		((u64)(n) << 2)	/* 0 cached, 2 uncached */
#define UAT_PTE_AP(n)		((u64)(n) << 6)	/* AP 1: firmware only */
#define UAT_PTE_AF		BIT_ULL(10)
#define UAT_PTE_ADDR		GENMASK_ULL(39, 14)
#define UAT_PTE_PXN		BIT_ULL(53)
#define UAT_PTE_UXN		BIT_ULL(54)
#define UAT_PTE_OS		BIT_ULL(55)	/* OS-owned: AP and XN apply */

/* drm/asahi's protection presets; uat_map() adds valid, AF and OS */
#define UAT_PROT_FW_PRIV_RW	(UAT_PTE_AP(1) | UAT_PTE_UXN | UAT_PTE_ATTR(0))
#define UAT_PROT_FW_SHARED_RW	(UAT_PTE_AP(1) | UAT_PTE_UXN | UAT_PTE_ATTR(2))
#define UAT_PROT_FW_SHARED_RO	(UAT_PTE_AP(1) | UAT_PTE_ATTR(2))

/* drm/asahi's user (GPU) protections; asahi_mmu_map() adds nG too */
#define UAT_PTE_NG		BIT_ULL(11)
#define UAT_PROT_GPU_SHARED_RW	(UAT_PTE_AP(2) | UAT_PTE_UXN | UAT_PTE_ATTR(2))
#define UAT_PROT_GPU_SHARED_RO	(UAT_PTE_AP(2) | UAT_PTE_ATTR(2))
#define UAT_PROT_GPU_SHARED_WO	(UAT_PTE_AP(2) | UAT_PTE_PXN | UAT_PTE_ATTR(2))

/* User VA: one page up to the page below the top two (IOVA_UNK_PAGE) */
#define UAT_IAS			39
#define ASAHI_VM_START		UAT_PAGE_SIZE
#define ASAHI_VM_END		(BIT_ULL(UAT_IAS) - 2 * UAT_PAGE_SIZE)
#define ASAHI_VM_UNK_PAGE	ASAHI_VM_END
#define ASAHI_VM_KERNEL_MIN	0x20000000ULL

/* Timestamp buffers: firmware-shared mappings in the kernel context */
#define ASAHI_TS_BASE		0xffffffae10000000ULL
#define ASAHI_TS_PAGES		4096	/* up to 0xffffffae_14000000 */

/* TTBAT: 64 contexts; 0 is the kernel's */
#define UAT_NUM_CTX		64

/* Root entry 2 of the upper half: 0xffffffa0_00000000 and up, 64 GiB */
#define UAT_DRIVER_L0_INDEX	2

/*
 * RTKit buffers go in the first 32 MiB of drm/asahi's RTKit range, the
 * span of one last-level table.
 */
#define UAT_RTKIT_BASE		0xffffffae00000000ULL
#define UAT_RTKIT_PAGES		UAT_TABLE_ENTRIES

struct asahi_device;
struct asahi_fwtest;
struct asahi_gpu;

/* What a part of the driver gets from RTKit (asahi_rtkit_add_hooks()) */
struct asahi_rtkit_hooks {
	/* A message, in process context; false if not for this part */
	bool (*recv)(struct asahi_device *priv, u8 ep, u64 msg);
	/*
	 * Optional: a message, in the mailbox's interrupt (RTKit's
	 * recv_message_early); false passes it on to recv
	 */
	bool (*recv_early)(struct asahi_device *priv, u8 ep, u64 msg);
	/* The coprocessor crashed: nothing it promised will come */
	void (*crashed)(struct asahi_device *priv);
};

#define ASAHI_RTKIT_MAX_HOOKS	2

struct asahi_device {
	struct drm_device drm;
	struct device *dev;
	void __iomem *asc;
	struct apple_rtkit *rtk;
	/* The parts RTKit's callbacks go to, in order (asahi_rtkit.c) */
	const struct asahi_rtkit_hooks *hooks[ASAHI_RTKIT_MAX_HOOKS];
	unsigned int nhooks;
	/* UAT: TTBAT, kernel root table and the tables below our entry */
	u64 *ttbat;
	phys_addr_t kernel_ttb1;
	u64 *root;
	struct page *l1_page;
	u64 *l1;
	struct page *l2_page;
	u64 *l2;
	/* Last-level tables of the GPU heaps, by level-1 index */
	struct page **heap_tables;
	/* Protects rtkit_pages, the entries of l1, l2 and the heap tables */
	struct mutex map_lock;
	DECLARE_BITMAP(rtkit_pages, UAT_RTKIT_PAGES);
	/* One self-test at a time */
	struct mutex cmd_lock;
	/* Protects crashed and the st_* fields, written by RTKit callbacks */
	spinlock_t lock;
	bool crashed;
	/*
	 * Self-tests (asahi_selftest.c): probed with manual_boot=1, the
	 * firmware is booted by them; echo replies of other endpoints
	 */
	bool manual_boot;
	struct completion st_event;
	bool st_have_reply;
	u8 st_reply_ep;
	u64 st_reply;
	unsigned int st_replies;
	/* The GPU firmware's state once it is up; under gpu_lock */
	struct mutex gpu_lock;
	struct asahi_gpu *gpu;
	/* The RX doorbells' handling, queued from the interrupt (asahi_event.c) */
	struct work_struct rx_work;
	/* The firmware self-tests' state (asahi_fwtest.c); under cmd_lock */
	struct asahi_fwtest *fwtest;
	/* From the SGX ID registers, for GET_PARAMS */
	u32 gpu_gen;
	u32 gpu_variant;
	u32 gpu_rev;
	u32 num_cores;
	u32 num_clusters;
	u32 core_mask;
	/* Internal VM ids, from 2 as drm/asahi counts them */
	atomic_t vm_ids;
	/* User VM contexts: TTBAT slots 1..UAT_NUM_CTX-1 (asahi_mmu.c) */
	struct mutex slot_lock;
	wait_queue_head_t slot_wait;
	bool slot_busy[UAT_NUM_CTX];
	unsigned int slot_vm[UAT_NUM_CTX];	/* id of the VM it holds */
	u64 slot_released[UAT_NUM_CTX];
	u64 slot_clock;
	/* Global queue ids, from 2 as drm/asahi counts them */
	atomic_t queue_ids;
	/*
	 * The schedulers' run_job/free_job work of every queue: one ordered
	 * workqueue, as jobs meet at the firmware's rings anyway (tx_lock);
	 * one per queue made them contend across CPUs
	 */
	struct workqueue_struct *sched_wq;
	/* Pages of the timestamp range in use; under map_lock */
	DECLARE_BITMAP(ts_pages, ASAHI_TS_PAGES);
};

#define to_asahi_device(d) container_of(d, struct asahi_device, drm)

/* Per open file: its VMs and queues, by the ids userspace sees */
struct asahi_file {
	struct xarray vms;
	struct xarray queues;
	struct xarray ts_objects;
};

/*
 * A UAT address space: three levels of 16 KiB tables under one root,
 * mapped into TTBAT slot "slot" while in use (asahi_mmu.c).
 */
struct asahi_mmu {
	struct asahi_device *adev;
	struct mutex lock;		/* the tables */
	struct page *root;
	/* Level-1 and level-2 tables, by index, to free them */
	struct page *l1[UAT_L0_ENTRIES];
	struct page **l2[UAT_L0_ENTRIES];
	unsigned int id;
	/* Context slot; under adev->slot_lock */
	unsigned int slot;		/* 0: none */
	unsigned int last_slot;
	unsigned int slot_users;
};

/* A user VM: GPUVM bookkeeping over a UAT address space */
struct asahi_vm {
	struct drm_gpuvm base;
	struct asahi_mmu mmu;
	/* Serialises VM_BIND and unbinds at handle close */
	struct mutex bind_lock;
	u64 kernel_start;
	u64 kernel_end;
	/* The kernel-range page at IOVA_UNK_PAGE */
	struct page *unk_page;
};

#define to_asahi_vm(v) container_of(v, struct asahi_vm, base)

struct asahi_bo {
	struct drm_gem_shmem_object base;
	u32 flags;
	/* VM_PRIVATE: the owning VM (its resv is ours) */
	struct asahi_vm *vm;
};

#define to_asahi_bo(o) container_of(to_drm_gem_shmem_obj(o), \
				    struct asahi_bo, base)

/* asahi_rtkit.c */
void asahi_rtkit_add_hooks(struct asahi_device *priv,
			   const struct asahi_rtkit_hooks *hooks);
int asahi_rtkit_init(struct asahi_device *priv);
int asahi_rtkit_boot(struct asahi_device *priv);
void asahi_rtkit_set_run(struct asahi_device *priv, bool run);
bool asahi_rtkit_get_run(struct asahi_device *priv);

/* asahi_drv.c */
bool asahi_crashed(struct asahi_device *adev);
int asahi_region(struct device *dev, const char *name, struct resource *res);

/* asahi_fw.c */
int asahi_gpu_init(struct asahi_device *priv);
ssize_t asahi_gpu_state_show(struct asahi_device *priv, char *buf);

u64 asahi_ticks_to_ns(u64 ticks);

/* asahi_event.c */
int asahi_gpu_add_hooks(struct asahi_device *priv);

/* asahi_fwtest.c */
int asahi_gpu_run(struct asahi_device *priv, const char *verb,
		  const char *arg);
unsigned int asahi_fwtest_jobs(struct asahi_device *priv);

/* asahi_selftest.c */
extern const struct attribute_group *asahi_dev_groups[];
void asahi_selftest_add_hooks(struct asahi_device *priv);

/* asahi_gem.c */
struct drm_gem_object *asahi_gem_create_object(struct drm_device *drm,
					       size_t size);
int asahi_ioctl_gem_create(struct drm_device *drm, void *data,
			   struct drm_file *file);
int asahi_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				struct drm_file *file);

/* A GEM_BIND_OBJECT timestamp mapping; jobs that use it hold it */
struct asahi_ts_obj {
	struct kref ref;
	struct asahi_device *adev;
	struct drm_gem_object *obj;
	u64 va;
	u64 size;
};

int asahi_ioctl_gem_bind_object(struct drm_device *drm, void *data,
				struct drm_file *file);
struct asahi_ts_obj *asahi_ts_obj_lookup(struct asahi_file *afile, u32 id);
void asahi_ts_obj_put(struct asahi_ts_obj *ts);
void asahi_ts_objs_release(struct asahi_file *afile);

/* asahi_mmu.c: the kernel context, then user VMs */
int asahi_kuat_init(struct asahi_device *priv);
int asahi_kuat_map(struct asahi_device *priv, u64 va, phys_addr_t pa,
		   unsigned int npages, u64 prot);
void asahi_kuat_unmap(struct asahi_device *priv, u64 va, unsigned int npages);
int asahi_kuat_map_rtkit(struct asahi_device *priv, phys_addr_t pa,
			 unsigned int npages, u64 *iova);
void asahi_kuat_unmap_rtkit(struct asahi_device *priv, u64 iova,
			    unsigned int npages);
int asahi_mmu_init(struct asahi_device *adev, struct asahi_mmu *mmu);
void asahi_mmu_fini(struct asahi_mmu *mmu);
int asahi_mmu_map(struct asahi_mmu *mmu, u64 va, struct sg_table *sgt,
		  u64 offset, u64 size, u64 prot, bool single_page);
void asahi_mmu_unmap(struct asahi_mmu *mmu, u64 va, u64 size);
u64 asahi_mmu_pte(struct asahi_mmu *mmu, u64 va);
int asahi_mmu_bind_slot(struct asahi_mmu *mmu);
void asahi_mmu_unbind_slot(struct asahi_mmu *mmu);

/* asahi_queue.c */
int asahi_ioctl_queue_create(struct drm_device *drm, void *data,
			     struct drm_file *file);
int asahi_ioctl_queue_destroy(struct drm_device *drm, void *data,
			      struct drm_file *file);
int asahi_ioctl_submit(struct drm_device *drm, void *data,
		       struct drm_file *file);
void asahi_queues_release(struct asahi_file *afile);

/* asahi_vm.c */
int asahi_ioctl_vm_create(struct drm_device *drm, void *data,
			  struct drm_file *file);
int asahi_ioctl_vm_destroy(struct drm_device *drm, void *data,
			   struct drm_file *file);
int asahi_ioctl_vm_bind(struct drm_device *drm, void *data,
			struct drm_file *file);
void asahi_vm_put(struct asahi_vm *vm);
void asahi_vm_release(struct asahi_vm *vm);
struct asahi_vm *asahi_vm_lookup(struct asahi_file *afile, u32 id);
void asahi_vm_unmap_bo(struct asahi_vm *vm, struct drm_gem_object *obj);

#endif
