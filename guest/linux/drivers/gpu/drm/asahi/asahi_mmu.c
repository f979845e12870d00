// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the GPU's MMU (UAT): every page table and TTBAT write of the
 * driver.  Three levels of 16 KiB tables: the root resolves VA[38:36],
 * level 1 VA[35:25], level 2 (leaves) VA[24:14].
 *
 * The kernel context (TTBAT slot 0): the firmware reaches RTKit's buffers
 * and the driver's kernel objects as GPU virtual addresses of it.  As
 * drm/asahi does, the driver owns root entry 2 of the kernel's upper-half
 * table (the "pagetables" region), sets slot 0 of the TTBAT (the "ttbs"
 * region) and maps RTKit's buffers in the first 32 MiB of
 * 0xffffffae_00000000 (asahi_kuat_map_rtkit()), the firmware heaps and
 * timestamp buffers elsewhere in the entry (asahi_kuat_map()).
 *
 * User VMs: a root table each, bound into TTBAT slots 1..63 while their
 * jobs run.  User PTEs carry nG, AF and the "OS" bit 55 with the
 * GPU_SHARED protections of drm/asahi.
 *
 * TLB maintenance: drm/asahi invalidates user-VM translations with CPU
 * broadcast TLBI by ASID (the context slot), never through the firmware.
 * QEMU's UAT caches no translations, so a barrier that orders the PTE
 * writes before the caller goes on is all this driver does.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitmap.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "asahi_drv.h"

/* drm/asahi's FW_SHARED_RW: firmware read/write, uncached, no GPU access */
#define UAT_PTE_FW_SHARED_RW	(UAT_PTE_VALID | UAT_PTE_AF | UAT_PTE_OS | \
				 UAT_PROT_FW_SHARED_RW)

/* TTBAT: 64 slots of {TTBR0, TTBR1}; slot 0 is the kernel context */
#define UAT_TTBAT_SIZE		(UAT_NUM_CTX * 2 * sizeof(u64))
#define UAT_TTB_VALID		BIT_ULL(0)

static struct page *asahi_mmu_table_alloc(void)
{
	/* Allocations of 16 KiB or more are 16 KiB aligned */
	return alloc_pages(GFP_KERNEL | __GFP_ZERO, get_order(UAT_PAGE_SIZE));
}

static void asahi_mmu_table_free(struct page *table)
{
	if (table)
		__free_pages(table, get_order(UAT_PAGE_SIZE));
}

/* Undoes asahi_kuat_init(), after RTKit freed its buffers */
static void asahi_kuat_fini(void *data)
{
	struct asahi_device *priv = data;
	unsigned int i;

	WRITE_ONCE(priv->ttbat[0], 0);
	WRITE_ONCE(priv->ttbat[1], 0);
	WRITE_ONCE(priv->root[UAT_DRIVER_L0_INDEX], 0);
	/* Unhooked before the tables go back */
	wmb();
	for (i = 0; i < UAT_TABLE_ENTRIES; i++)
		asahi_mmu_table_free(priv->heap_tables[i]);
	asahi_mmu_table_free(priv->l2_page);
	asahi_mmu_table_free(priv->l1_page);
}

/*
 * Kernel context: the "pagetables" region is the TTBR1 root table; hang a
 * level-1 table off root entry 2 and the RTKit level-2 table off it, then
 * bind slot 0 of the TTBAT.  Nothing is mapped in the lower half.
 */
int asahi_kuat_init(struct asahi_device *priv)
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

	priv->l1_page = asahi_mmu_table_alloc();
	priv->l2_page = asahi_mmu_table_alloc();
	if (!priv->l1_page || !priv->l2_page) {
		asahi_mmu_table_free(priv->l1_page);
		asahi_mmu_table_free(priv->l2_page);
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

	return devm_add_action_or_reset(dev, asahi_kuat_fini, priv);
}

/* Is va in our root entry, outside the RTKit range? */
static bool asahi_kuat_heap_va(u64 va)
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
int asahi_kuat_map(struct asahi_device *priv, u64 va, phys_addr_t pa,
		   unsigned int npages, u64 prot)
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

		if (!asahi_kuat_heap_va(va) ||
		    !IS_ALIGNED(va, UAT_PAGE_SIZE)) {
			ret = -EINVAL;
			break;
		}
		table = priv->heap_tables[l1_index];
		if (!table) {
			table = asahi_mmu_table_alloc();
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
void asahi_kuat_unmap(struct asahi_device *priv, u64 va, unsigned int npages)
{
	unsigned int i;

	mutex_lock(&priv->map_lock);
	for (i = 0; i < npages; i++, va += UAT_PAGE_SIZE) {
		struct page *table;

		if (!asahi_kuat_heap_va(va))
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

/*
 * Maps npages pages at pa firmware read/write in the RTKit range (one
 * last-level table, l2); *iova: where
 */
int asahi_kuat_map_rtkit(struct asahi_device *priv, phys_addr_t pa,
			 unsigned int npages, u64 *iova)
{
	unsigned int first, i;

	mutex_lock(&priv->map_lock);
	first = bitmap_find_next_zero_area(priv->rtkit_pages, UAT_RTKIT_PAGES,
					   0, npages, 0);
	if (first >= UAT_RTKIT_PAGES) {
		mutex_unlock(&priv->map_lock);
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
	*iova = UAT_RTKIT_BASE + (u64)first * UAT_PAGE_SIZE;
	return 0;
}

void asahi_kuat_unmap_rtkit(struct asahi_device *priv, u64 iova,
			    unsigned int npages)
{
	unsigned int first = (iova - UAT_RTKIT_BASE) >> UAT_PAGE_SHIFT, i;

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
}

int asahi_mmu_init(struct asahi_device *adev, struct asahi_mmu *mmu)
{
	mmu->adev = adev;
	mutex_init(&mmu->lock);
	mmu->root = asahi_mmu_table_alloc();
	if (!mmu->root)
		return -ENOMEM;
	return 0;
}

void asahi_mmu_fini(struct asahi_mmu *mmu)
{
	struct asahi_device *adev = mmu->adev;
	unsigned int i, j, s = mmu->last_slot;

	/* The last slot may still point at our tables: unbind it */
	mutex_lock(&adev->slot_lock);
	if (s && adev->slot_vm[s] == mmu->id) {
		WRITE_ONCE(adev->ttbat[2 * s], 0);
		WRITE_ONCE(adev->ttbat[2 * s + 1], 0);
		adev->slot_vm[s] = 0;
		/* Unbound before the tables go (TLBI by ASID: see above) */
		wmb();
	}
	mutex_unlock(&adev->slot_lock);

	for (i = 0; i < UAT_L0_ENTRIES; i++) {
		if (!mmu->l2[i])
			continue;
		for (j = 0; j < UAT_TABLE_ENTRIES; j++)
			asahi_mmu_table_free(mmu->l2[i][j]);
		kfree(mmu->l2[i]);
	}
	for (i = 0; i < UAT_L0_ENTRIES; i++)
		asahi_mmu_table_free(mmu->l1[i]);
	asahi_mmu_table_free(mmu->root);
	mutex_destroy(&mmu->lock);
}

/* The leaf table for va, created if alloc; NULL if absent or no memory */
static u64 *asahi_mmu_leaf(struct asahi_mmu *mmu, u64 va, bool alloc)
{
	unsigned int i0 = UAT_INDEX(va, UAT_L0_SHIFT, UAT_L0_ENTRIES);
	unsigned int i1 = UAT_INDEX(va, UAT_L1_SHIFT, UAT_TABLE_ENTRIES);
	u64 *root = page_address(mmu->root);
	struct page *t;

	if (!mmu->l1[i0]) {
		if (!alloc)
			return NULL;
		mmu->l2[i0] = kzalloc_objs(*mmu->l2[i0], UAT_TABLE_ENTRIES);
		t = asahi_mmu_table_alloc();
		if (!t || !mmu->l2[i0]) {
			asahi_mmu_table_free(t);
			kfree(mmu->l2[i0]);
			mmu->l2[i0] = NULL;
			return NULL;
		}
		mmu->l1[i0] = t;
		/* Empty, so complete before it becomes reachable */
		wmb();
		WRITE_ONCE(root[i0], (page_to_phys(t) & UAT_PTE_ADDR) |
			   UAT_PTE_VALID);
	}
	if (!mmu->l2[i0][i1]) {
		u64 *l1 = page_address(mmu->l1[i0]);

		if (!alloc)
			return NULL;
		t = asahi_mmu_table_alloc();
		if (!t)
			return NULL;
		mmu->l2[i0][i1] = t;
		/* Likewise */
		wmb();
		WRITE_ONCE(l1[i1], (page_to_phys(t) & UAT_PTE_ADDR) |
			   UAT_PTE_VALID);
	}
	return page_address(mmu->l2[i0][i1]);
}

/*
 * Maps size bytes at va to the pages of sgt from byte offset on; with
 * single_page, the one page at offset over the whole range.
 */
int asahi_mmu_map(struct asahi_mmu *mmu, u64 va, struct sg_table *sgt,
		  u64 offset, u64 size, u64 prot, bool single_page)
{
	u64 end = va + size, skip = offset;
	struct scatterlist *sg;
	phys_addr_t pa = 0;
	u64 seg_left = 0;
	unsigned int i;
	int ret = 0;

	/* Find the page at offset */
	for_each_sgtable_sg(sgt, sg, i) {
		if (skip < sg->length) {
			pa = sg_phys(sg) + skip;
			seg_left = sg->length - skip;
			break;
		}
		skip -= sg->length;
	}
	if (!seg_left)
		return -EINVAL;

	mutex_lock(&mmu->lock);
	while (va < end) {
		u64 *leaf = asahi_mmu_leaf(mmu, va, true);

		if (!leaf) {
			ret = -ENOMEM;
			break;
		}
		WRITE_ONCE(leaf[UAT_INDEX(va, UAT_PAGE_SHIFT,
					  UAT_TABLE_ENTRIES)],
			   (pa & UAT_PTE_ADDR) | prot | UAT_PTE_VALID |
			   UAT_PTE_AF | UAT_PTE_NG | UAT_PTE_OS);
		va += UAT_PAGE_SIZE;
		if (single_page)
			continue;
		pa += UAT_PAGE_SIZE;
		seg_left -= UAT_PAGE_SIZE;
		if (!seg_left && va < end) {
			sg = sg_next(sg);
			if (!sg) {
				ret = -EINVAL;
				break;
			}
			pa = sg_phys(sg);
			seg_left = sg->length;
		}
	}
	/* The PTEs are in memory before anyone uses the VA */
	wmb();
	mutex_unlock(&mmu->lock);
	return ret;
}

void asahi_mmu_unmap(struct asahi_mmu *mmu, u64 va, u64 size)
{
	u64 end = va + size;

	mutex_lock(&mmu->lock);
	for (; va < end; va += UAT_PAGE_SIZE) {
		u64 *leaf = asahi_mmu_leaf(mmu, va, false);

		if (leaf)
			WRITE_ONCE(leaf[UAT_INDEX(va, UAT_PAGE_SHIFT,
						  UAT_TABLE_ENTRIES)], 0);
	}
	/* Cleared before the pages may go back (TLBI: see above) */
	wmb();
	mutex_unlock(&mmu->lock);
}

/* The PTE at va, for tests and debugging; 0 if unmapped */
u64 asahi_mmu_pte(struct asahi_mmu *mmu, u64 va)
{
	u64 *leaf, pte = 0;

	mutex_lock(&mmu->lock);
	leaf = asahi_mmu_leaf(mmu, va, false);
	if (leaf)
		pte = READ_ONCE(leaf[UAT_INDEX(va, UAT_PAGE_SHIFT,
					       UAT_TABLE_ENTRIES)]);
	mutex_unlock(&mmu->lock);
	return pte;
}

/*
 * A context slot for the VM while a job of it lives, as drm/asahi binds:
 * the slot it had last if nobody took it since (no TTB write), else the
 * free slot released longest ago; none free: wait for one.
 */
int asahi_mmu_bind_slot(struct asahi_mmu *mmu)
{
	struct asahi_device *adev = mmu->adev;
	unsigned int s, best;
	u64 clock;
	int ret;

	mutex_lock(&adev->slot_lock);
	while (!mmu->slot) {
		s = mmu->last_slot;
		if (s && !adev->slot_busy[s] && adev->slot_vm[s] == mmu->id) {
			mmu->slot = s;
			break;
		}
		best = 0;
		for (s = 1; s < UAT_NUM_CTX; s++) {
			if (!adev->slot_busy[s] &&
			    (!best ||
			     adev->slot_released[s] < adev->slot_released[best]))
				best = s;
		}
		if (best) {
			mmu->slot = best;
			adev->slot_vm[best] = mmu->id;
			WRITE_ONCE(adev->ttbat[2 * best],
				   page_to_phys(mmu->root) | 1 |
				   (u64)best << 48);
			WRITE_ONCE(adev->ttbat[2 * best + 1], 0);
			/* Bound before a command names the slot */
			wmb();
			break;
		}
		dev_info(adev->dev, "out of VM slots, blocking\n");
		clock = adev->slot_clock;
		mutex_unlock(&adev->slot_lock);
		ret = wait_event_interruptible(adev->slot_wait,
					       READ_ONCE(adev->slot_clock) !=
					       clock);
		if (ret)
			return ret;
		mutex_lock(&adev->slot_lock);
	}
	adev->slot_busy[mmu->slot] = true;
	mmu->slot_users++;
	s = mmu->slot;
	mutex_unlock(&adev->slot_lock);
	return s;
}

void asahi_mmu_unbind_slot(struct asahi_mmu *mmu)
{
	struct asahi_device *adev = mmu->adev;

	mutex_lock(&adev->slot_lock);
	if (!WARN_ON(!mmu->slot_users) && !--mmu->slot_users) {
		adev->slot_busy[mmu->slot] = false;
		adev->slot_released[mmu->slot] = ++adev->slot_clock;
		mmu->last_slot = mmu->slot;
		mmu->slot = 0;
		wake_up_all(&adev->slot_wait);
	}
	mutex_unlock(&adev->slot_lock);
}
