// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the GPU's ASC coprocessor through the kernel's RTKit library, and
 * the kernel's own UAT context (TTBAT slot 0).
 *
 * The firmware reaches RTKit's buffers and the driver's kernel objects
 * through the GPU's MMU (UAT), as GPU virtual addresses of the kernel
 * context.  As drm/asahi does, the driver owns root entry 2 of the
 * kernel's upper-half table (the "pagetables" region), sets slot 0 of the
 * TTBAT (the "ttbs" region) and maps each RTKit buffer firmware read/write
 * at 0xffffffae_00000000 and up, the IOVA it then hands to the firmware.
 * The firmware part maps its objects in the same root entry
 * (asahi_kuat_map()).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "asahi_drv.h"
#include "asahi_fw.h"

/* Only the CPU control page of the "asc" block; the mailbox has its node */
#define ASC_MAP_SIZE		0x4000
#define ASC_CPU_CONTROL		0x44
#define ASC_CPU_CONTROL_RUN	BIT(4)

/* drm/asahi's FW_SHARED_RW: firmware read/write, uncached, no GPU access */
#define UAT_PTE_FW_SHARED_RW	(UAT_PTE_VALID | UAT_PTE_AF | UAT_PTE_OS | \
				 UAT_PROT_FW_SHARED_RW)

/* TTBAT: 64 slots of {TTBR0, TTBR1}; slot 0 is the kernel context */
#define UAT_TTBAT_SIZE		(64 * 2 * sizeof(u64))
#define UAT_TTB_VALID		BIT_ULL(0)

static void asahi_rtkit_crashed(void *cookie, const void *crashlog,
				size_t crashlog_size)
{
	struct asahi_device *priv = cookie;

	spin_lock(&priv->lock);
	priv->crashed = true;
	spin_unlock(&priv->lock);
	dev_err(priv->dev, "GPU firmware crashed, failing all jobs\n");
	asahi_gpu_crashed(priv);
	asahi_selftest_crashed(priv);
}

static void asahi_rtkit_recv(void *cookie, u8 ep, u64 msg)
{
	struct asahi_device *priv = cookie;

	/* The GPU firmware's endpoints, else those the self-tests start */
	if (!asahi_gpu_recv(priv, ep, msg))
		asahi_selftest_recv(priv, ep, msg);
}

/*
 * RTKit asks for a buffer with IOVA 0: allocate it, map it into the kernel
 * UAT context and answer with its GPU VA.
 */
static int asahi_rtkit_shmem_setup(void *cookie,
				      struct apple_rtkit_shmem *bfr)
{
	struct asahi_device *priv = cookie;
	unsigned int npages, first, i;
	struct page *pages;
	phys_addr_t pa;

	if (bfr->iova) {
		dev_err(priv->dev,
			"firmware-mapped buffer at %pad is not supported\n",
			&bfr->iova);
		return -EINVAL;
	}
	if (!bfr->size || bfr->size > UAT_RTKIT_PAGES * UAT_PAGE_SIZE) {
		dev_err(priv->dev, "bad buffer size 0x%zx\n",
			bfr->size);
		return -EINVAL;
	}
	npages = DIV_ROUND_UP(bfr->size, UAT_PAGE_SIZE);

	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO,
			    get_order(npages * UAT_PAGE_SIZE));
	if (!pages) {
		dev_err(priv->dev,
			"cannot allocate a 0x%zx byte buffer\n",
			bfr->size);
		return -ENOMEM;
	}
	pa = page_to_phys(pages);

	mutex_lock(&priv->map_lock);
	first = bitmap_find_next_zero_area(priv->rtkit_pages, UAT_RTKIT_PAGES,
					   0, npages, 0);
	if (first >= UAT_RTKIT_PAGES) {
		mutex_unlock(&priv->map_lock);
		__free_pages(pages, get_order(npages * UAT_PAGE_SIZE));
		dev_err(priv->dev,
			"no GPU VA space for a 0x%zx byte buffer\n",
			bfr->size);
		return -ENOSPC;
	}
	bitmap_set(priv->rtkit_pages, first, npages);
	for (i = 0; i < npages; i++)
		WRITE_ONCE(priv->l2[first + i],
			   ((pa + i * UAT_PAGE_SIZE) & UAT_PTE_ADDR) |
			   UAT_PTE_FW_SHARED_RW);
	/* The PTEs are in memory before RTKit sends the IOVA */
	wmb();
	mutex_unlock(&priv->map_lock);

	bfr->buffer = page_address(pages);
	bfr->iova = UAT_RTKIT_BASE + (u64)first * UAT_PAGE_SIZE;
	bfr->private = pages;
	return 0;
}

static void asahi_rtkit_shmem_destroy(void *cookie,
					 struct apple_rtkit_shmem *bfr)
{
	struct asahi_device *priv = cookie;
	unsigned int npages, first, i;

	if (!bfr->private)
		return;
	npages = DIV_ROUND_UP(bfr->size, UAT_PAGE_SIZE);
	first = (bfr->iova - UAT_RTKIT_BASE) >> UAT_PAGE_SHIFT;

	mutex_lock(&priv->map_lock);
	for (i = 0; i < npages; i++)
		WRITE_ONCE(priv->l2[first + i], 0);
	/*
	 * Real hardware would also need a TLB invalidation of the kernel
	 * context here; QEMU's UAT does not cache translations.  The PTEs
	 * are cleared before the pages go back:
	 */
	wmb();
	bitmap_clear(priv->rtkit_pages, first, npages);
	mutex_unlock(&priv->map_lock);

	__free_pages(bfr->private, get_order(npages * UAT_PAGE_SIZE));
	bfr->private = NULL;
	bfr->buffer = NULL;
}

static const struct apple_rtkit_ops asahi_rtkit_ops = {
	.crashed = asahi_rtkit_crashed,
	.recv_message = asahi_rtkit_recv,
	.shmem_setup = asahi_rtkit_shmem_setup,
	.shmem_destroy = asahi_rtkit_shmem_destroy,
};

/* Finds the GPU node's reserved-memory region called name */
int asahi_region(struct device *dev, const char *name,
			  struct resource *res)
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

/* Undoes asahi_rtkit_uat_init(), after RTKit freed its buffers */
static void asahi_rtkit_uat_fini(void *data)
{
	struct asahi_device *priv = data;
	unsigned int i;

	WRITE_ONCE(priv->ttbat[0], 0);
	WRITE_ONCE(priv->ttbat[1], 0);
	WRITE_ONCE(priv->root[UAT_DRIVER_L0_INDEX], 0);
	/* Unhooked before the tables go back */
	wmb();
	for (i = 0; i < UAT_TABLE_ENTRIES; i++) {
		if (priv->heap_tables[i])
			__free_pages(priv->heap_tables[i],
				     get_order(UAT_PAGE_SIZE));
	}
	__free_pages(priv->l2_page, get_order(UAT_PAGE_SIZE));
	__free_pages(priv->l1_page, get_order(UAT_PAGE_SIZE));
}

/*
 * Kernel context: the "pagetables" region is the TTBR1 root table; hang a
 * level-1 table off root entry 2 and the RTKit level-2 table off it, then
 * bind slot 0 of the TTBAT.  Nothing is mapped in the lower half.
 */
static int asahi_rtkit_uat_init(struct asahi_device *priv)
{
	struct device *dev = priv->dev;
	struct resource ttbs, pt;
	unsigned int l1_index;
	phys_addr_t l1_pa, l2_pa;
	int ret;

	ret = asahi_region(dev, "ttbs", &ttbs);
	if (ret)
		return ret;
	ret = asahi_region(dev, "pagetables", &pt);
	if (ret)
		return ret;
	if (resource_size(&ttbs) < UAT_TTBAT_SIZE) {
		dev_err(dev, "ttbs region %pR is too small\n",
			&ttbs);
		return -EINVAL;
	}
	if (resource_size(&pt) < UAT_PAGE_SIZE ||
	    !IS_ALIGNED(pt.start, UAT_PAGE_SIZE)) {
		dev_err(dev, "pagetables region %pR is not a page\n",
			&pt);
		return -EINVAL;
	}

	/*
	 * Both are mapped RAM, as m1n1 and t8103.dtsi leave them (no
	 * no-map): only a write-back mapping of them is allowed
	 */
	priv->ttbat = devm_memremap(dev, ttbs.start, UAT_TTBAT_SIZE,
				    MEMREMAP_WB);
	if (IS_ERR(priv->ttbat)) {
		dev_err(dev, "cannot map ttbs region %pR\n", &ttbs);
		return PTR_ERR(priv->ttbat);
	}
	priv->root = devm_memremap(dev, pt.start, UAT_PAGE_SIZE, MEMREMAP_WB);
	if (IS_ERR(priv->root)) {
		dev_err(dev, "cannot map pagetables region %pR\n",
			&pt);
		return PTR_ERR(priv->root);
	}
	priv->heap_tables = devm_kcalloc(dev, UAT_TABLE_ENTRIES,
					 sizeof(*priv->heap_tables),
					 GFP_KERNEL);
	if (!priv->heap_tables)
		return -ENOMEM;

	/* Page allocations of at least 16 KiB are 16 KiB aligned */
	priv->l1_page = alloc_pages(GFP_KERNEL | __GFP_ZERO,
				    get_order(UAT_PAGE_SIZE));
	priv->l2_page = alloc_pages(GFP_KERNEL | __GFP_ZERO,
				    get_order(UAT_PAGE_SIZE));
	if (!priv->l1_page || !priv->l2_page) {
		if (priv->l1_page)
			__free_pages(priv->l1_page, get_order(UAT_PAGE_SIZE));
		if (priv->l2_page)
			__free_pages(priv->l2_page, get_order(UAT_PAGE_SIZE));
		dev_err(dev, "cannot allocate page tables\n");
		return -ENOMEM;
	}
	priv->l1 = page_address(priv->l1_page);
	priv->l2 = page_address(priv->l2_page);
	l1_pa = page_to_phys(priv->l1_page);
	l2_pa = page_to_phys(priv->l2_page);

	l1_index = UAT_INDEX(UAT_RTKIT_BASE, UAT_L1_SHIFT, UAT_TABLE_ENTRIES);
	WRITE_ONCE(priv->l1[l1_index], (l2_pa & UAT_PTE_ADDR) | UAT_PTE_VALID);
	/* A table is complete before it becomes reachable */
	wmb();
	WRITE_ONCE(priv->root[UAT_DRIVER_L0_INDEX],
		   (l1_pa & UAT_PTE_ADDR) | UAT_PTE_VALID);
	/* Likewise the root entry before the TTBAT slot points at it */
	wmb();

	/* Slot 0: no lower half; upper half through the pagetables root */
	memset(priv->ttbat, 0, UAT_TTBAT_SIZE);
	WRITE_ONCE(priv->ttbat[1], pt.start | UAT_TTB_VALID);
	/* Bound before the coprocessor can run */
	wmb();

	return devm_add_action_or_reset(dev, asahi_rtkit_uat_fini, priv);
}

/* Is va in our root entry, outside the RTKit range? */
static bool asahi_rtkit_heap_va(u64 va)
{
	return va >> 39 == GENMASK_ULL(24, 0) &&
	       UAT_INDEX(va, UAT_L0_SHIFT, UAT_L0_ENTRIES) ==
	       UAT_DRIVER_L0_INDEX &&
	       UAT_INDEX(va, UAT_L1_SHIFT, UAT_TABLE_ENTRIES) !=
	       UAT_INDEX(UAT_RTKIT_BASE, UAT_L1_SHIFT, UAT_TABLE_ENTRIES);
}

/*
 * Maps npages pages at pa to the kernel context's va with prot (one of the
 * UAT_PROT_* presets), creating last-level tables as needed.  For the GPU
 * heaps: not in the RTKit range.
 */
int asahi_kuat_map(struct asahi_device *priv, u64 va,
			   phys_addr_t pa, unsigned int npages, u64 prot)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&priv->map_lock);
	for (i = 0; i < npages; i++, va += UAT_PAGE_SIZE, pa += UAT_PAGE_SIZE) {
		unsigned int l1_index = UAT_INDEX(va, UAT_L1_SHIFT,
						  UAT_TABLE_ENTRIES);
		unsigned int l2_index = UAT_INDEX(va, UAT_PAGE_SHIFT,
						  UAT_TABLE_ENTRIES);
		struct page *table;
		u64 *l2;

		if (!asahi_rtkit_heap_va(va) ||
		    !IS_ALIGNED(va, UAT_PAGE_SIZE)) {
			ret = -EINVAL;
			break;
		}
		table = priv->heap_tables[l1_index];
		if (!table) {
			table = alloc_pages(GFP_KERNEL | __GFP_ZERO,
					    get_order(UAT_PAGE_SIZE));
			if (!table) {
				ret = -ENOMEM;
				break;
			}
			priv->heap_tables[l1_index] = table;
			/* Empty, so complete before it becomes reachable */
			wmb();
			WRITE_ONCE(priv->l1[l1_index],
				   (page_to_phys(table) & UAT_PTE_ADDR) |
				   UAT_PTE_VALID);
		}
		l2 = page_address(table);
		WRITE_ONCE(l2[l2_index], (pa & UAT_PTE_ADDR) | prot |
			   UAT_PTE_VALID | UAT_PTE_AF | UAT_PTE_OS);
	}
	/* The PTEs are in memory before the caller hands out the VA */
	wmb();
	mutex_unlock(&priv->map_lock);
	return ret;
}

/* Clears the PTEs of npages pages at va (QEMU's UAT caches nothing) */
void asahi_kuat_unmap(struct asahi_device *priv, u64 va,
			      unsigned int npages)
{
	unsigned int i;

	mutex_lock(&priv->map_lock);
	for (i = 0; i < npages; i++, va += UAT_PAGE_SIZE) {
		struct page *table;

		if (!asahi_rtkit_heap_va(va))
			continue;
		table = priv->heap_tables[UAT_INDEX(va, UAT_L1_SHIFT,
						    UAT_TABLE_ENTRIES)];
		if (table)
			WRITE_ONCE(((u64 *)page_address(table))
				   [UAT_INDEX(va, UAT_PAGE_SHIFT,
					      UAT_TABLE_ENTRIES)], 0);
	}
	/* Cleared before the caller frees the pages */
	wmb();
	mutex_unlock(&priv->map_lock);
}

void asahi_rtkit_set_run(struct asahi_device *priv, bool run)
{
	u32 ctrl = readl(priv->asc + ASC_CPU_CONTROL);

	if (run)
		ctrl |= ASC_CPU_CONTROL_RUN;
	else
		ctrl &= ~ASC_CPU_CONTROL_RUN;
	writel(ctrl, priv->asc + ASC_CPU_CONTROL);
}

bool asahi_rtkit_get_run(struct asahi_device *priv)
{
	return readl(priv->asc + ASC_CPU_CONTROL) & ASC_CPU_CONTROL_RUN;
}

/* Registered before RTKit, so it runs after RTKit is torn down */
static void asahi_rtkit_stop_cpu(void *data)
{
	asahi_rtkit_set_run(data, false);
}

/*
 * Kernel UAT context, then RTKit, its coprocessor not started yet.
 * Everything is torn down by devm, RTKit before the page tables.
 */
int asahi_rtkit_init(struct asahi_device *priv)
{
	struct platform_device *pdev = to_platform_device(priv->dev);
	struct device *dev = priv->dev;
	struct resource *res;
	int ret;

	res = platform_get_resource_byname(pdev, IORESOURCE_MEM, "asc");
	if (!res || resource_size(res) < ASC_MAP_SIZE)
		return dev_err_probe(dev, -EINVAL, "no usable \"asc\" reg\n");
	priv->asc = devm_ioremap(dev, res->start, ASC_MAP_SIZE);
	if (!priv->asc)
		return -ENOMEM;

	ret = asahi_rtkit_uat_init(priv);
	if (ret)
		return ret;
	ret = devm_add_action_or_reset(dev, asahi_rtkit_stop_cpu, priv);
	if (ret)
		return ret;
	priv->rtk = devm_apple_rtkit_init(dev, priv, NULL, 0, &asahi_rtkit_ops);
	if (IS_ERR(priv->rtk))
		return dev_err_probe(dev, PTR_ERR(priv->rtk),
				     "RTKit init failed\n");
	return 0;
}

/*
 * Starts the coprocessor (CPU_CONTROL.RUN) and runs RTKit's handshake:
 * HELLO, the endpoint map, the system endpoints, the power states.
 */
int asahi_rtkit_boot(struct asahi_device *priv)
{
	asahi_rtkit_set_run(priv, true);
	return apple_rtkit_boot(priv->rtk);
}
