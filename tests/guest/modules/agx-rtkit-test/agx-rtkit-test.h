/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agx-rtkit-test: what agx-rtkit.c (probe, RTKit, UAT, sysfs) and agx-gpu.c
 * (the GPU firmware protocol) share.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#ifndef AGX_RTKIT_TEST_H
#define AGX_RTKIT_TEST_H

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/ioport.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

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

/* Root entry 2 of the upper half: 0xffffffa0_00000000 and up, 64 GiB */
#define UAT_DRIVER_L0_INDEX	2

/*
 * RTKit buffers go in the first 32 MiB of drm/asahi's RTKit range, the
 * span of one last-level table.
 */
#define UAT_RTKIT_BASE		0xffffffae00000000ULL
#define UAT_RTKIT_PAGES		UAT_TABLE_ENTRIES

struct agx_gpu;

struct agx_rtkit_test {
	struct device *dev;
	void __iomem *asc;
	struct apple_rtkit *rtk;
	/* UAT: TTBAT, kernel root table and the tables below our entry */
	u64 *ttbat;
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
	/* One command at a time */
	struct mutex cmd_lock;
	/* Signalled when an application endpoint replies or RTKit crashes */
	struct completion event;
	/* Protects the fields below, written by the RTKit callbacks */
	spinlock_t lock;
	bool crashed;
	bool have_reply;
	u8 reply_ep;
	u64 reply;
	unsigned int replies;
	/* The GPU firmware's state once gpu-init ran; under gpu_lock */
	struct mutex gpu_lock;
	struct agx_gpu *gpu;
};

/* agx-rtkit.c */
int agx_rtkit_test_region(struct device *dev, const char *name,
			  struct resource *res);
int agx_rtkit_test_uat_map(struct agx_rtkit_test *priv, u64 va,
			   phys_addr_t pa, unsigned int npages, u64 prot);
void agx_rtkit_test_uat_unmap(struct agx_rtkit_test *priv, u64 va,
			      unsigned int npages);
void agx_rtkit_test_set_run(struct agx_rtkit_test *priv, bool run);

/* agx-gpu.c */
int agx_gpu_run(struct agx_rtkit_test *priv, const char *verb,
		const char *arg);
bool agx_gpu_recv(struct agx_rtkit_test *priv, u8 ep, u64 msg);
void agx_gpu_crashed(struct agx_rtkit_test *priv);
ssize_t agx_gpu_state_show(struct agx_rtkit_test *priv, char *buf);

#endif
