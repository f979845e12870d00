// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: UAT page tables of user VMs.  Three levels of 16 KiB tables as in
 * the kernel context (asahi_rtkit.c): the root resolves VA[38:36], level 1
 * VA[35:25], level 2 (leaves) VA[24:14].  User PTEs carry nG, AF and the
 * "OS" bit 55 with the GPU_SHARED protections of drm/asahi.
 *
 * TLB maintenance: drm/asahi invalidates user-VM translations with CPU
 * broadcast TLBI by ASID (the context slot), never through the firmware.
 * QEMU's UAT caches no translations, so a barrier that orders the PTE
 * writes before the caller goes on is all this driver does.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "asahi_drv.h"

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
