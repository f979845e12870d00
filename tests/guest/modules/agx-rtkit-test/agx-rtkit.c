// SPDX-License-Identifier: GPL-2.0-only
/*
 * agx-rtkit-test: drive the GPU coprocessor of QEMU's apple-m1 machine with
 * the kernel's own RTKit library (drivers/soc/apple/), then the GPU
 * firmware behind it the way drm/asahi does (agx-gpu.c).
 *
 * Binds to the GPU node and exposes three sysfs attributes on it:
 *
 *   rtkit_cmd (write-only): one command per write(); the write fails with
 *   the command's error code.
 *     boot             set CPU_CONTROL.RUN, then run the RTKit handshake
 *     start-ep <ep>    start an application endpoint
 *     echo <ep> <val>  send <val> to <ep>; the reply must be ~<val>
 *     idle             put the coprocessor into idle
 *     wake             wake it from idle or sleep
 *     shutdown         put it to sleep and reset the library state
 *     stop-cpu         clear CPU_CONTROL.RUN
 *     reinit           forget the library's state (CPU stopped; a crash too)
 *     gpu-init         after boot: the GPU firmware's initialisation
 *     gpu-jobs <n>     submit n jobs to the GPU and check their completion
 *     gpu-fault        submit jobs until one takes a GPU fault (armed by
 *                      the host), check the fault and recover from it
 *
 *   rtkit_state (read-only): "<running|crashed|down> crashed=<0|1>
 *   replies=<n> run=<0|1>".
 *
 *   gpu_state (read-only): the GPU part's counters (see agx-gpu.c).
 *
 * Everything waits on completions signalled from the RTKit callbacks, which
 * the mailbox's receive interrupt feeds: nothing polls.
 *
 * The GPU firmware reaches RTKit's buffers through the GPU's own MMU (UAT),
 * as GPU virtual addresses of the kernel context (TTBAT slot 0).  Like
 * drm/asahi, this driver owns root entry 2 of the kernel's upper-half table
 * (the "pagetables" region), sets slot 0 of the TTBAT (the "ttbs" region)
 * and maps each buffer firmware read/write at 0xffffffae_00000000 and up,
 * the IOVA it then hands to the firmware.  The GPU part maps its objects
 * in the same root entry (agx_rtkit_test_uat_map()).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/ctype.h>
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
#include <linux/sysfs.h>

#include "agx-rtkit-test.h"

/* Only the CPU control page of the "asc" block; the mailbox has its node */
#define ASC_MAP_SIZE		0x4000
#define ASC_CPU_CONTROL		0x44
#define ASC_CPU_CONTROL_RUN	BIT(4)

#define ECHO_TIMEOUT_MS		1000

/* drm/asahi's FW_SHARED_RW: firmware read/write, uncached, no GPU access */
#define UAT_PTE_FW_SHARED_RW	(UAT_PTE_VALID | UAT_PTE_AF | UAT_PTE_OS | \
				 UAT_PROT_FW_SHARED_RW)

/* TTBAT: 64 slots of {TTBR0, TTBR1}; slot 0 is the kernel context */
#define UAT_TTBAT_SIZE		(64 * 2 * sizeof(u64))
#define UAT_TTB_VALID		BIT_ULL(0)

/*
 * Linux 7.3's RTKit hands over its copy of the crash log (NULL if it
 * could not allocate one); it has already decoded and printed it.
 */
static void agx_rtkit_test_crashed(void *cookie, const void *crashlog,
				   size_t crashlog_size)
{
	struct agx_rtkit_test *priv = cookie;

	spin_lock(&priv->lock);
	priv->crashed = true;
	spin_unlock(&priv->lock);
	dev_info(priv->dev, "rtkit-test: firmware crashed (crash log %zu bytes%s)\n",
		 crashlog_size, crashlog ? "" : ", not copied");
	complete(&priv->event);
	agx_gpu_crashed(priv);
}

static void agx_rtkit_test_recv(void *cookie, u8 ep, u64 msg)
{
	struct agx_rtkit_test *priv = cookie;

	/* The GPU firmware's endpoints */
	if (agx_gpu_recv(priv, ep, msg))
		return;

	spin_lock(&priv->lock);
	priv->have_reply = true;
	priv->reply_ep = ep;
	priv->reply = msg;
	priv->replies++;
	spin_unlock(&priv->lock);
	complete(&priv->event);
}

/*
 * RTKit asks for a buffer with IOVA 0: allocate it, map it into the kernel
 * UAT context and answer with its GPU VA.
 */
static int agx_rtkit_test_shmem_setup(void *cookie,
				      struct apple_rtkit_shmem *bfr)
{
	struct agx_rtkit_test *priv = cookie;
	unsigned int npages, first, i;
	struct page *pages;
	phys_addr_t pa;

	if (bfr->iova) {
		dev_err(priv->dev,
			"rtkit-test: firmware-mapped buffer at %pad is not supported\n",
			&bfr->iova);
		return -EINVAL;
	}
	if (!bfr->size || bfr->size > UAT_RTKIT_PAGES * UAT_PAGE_SIZE) {
		dev_err(priv->dev, "rtkit-test: bad buffer size 0x%zx\n",
			bfr->size);
		return -EINVAL;
	}
	npages = DIV_ROUND_UP(bfr->size, UAT_PAGE_SIZE);

	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO,
			    get_order(npages * UAT_PAGE_SIZE));
	if (!pages) {
		dev_err(priv->dev,
			"rtkit-test: cannot allocate a 0x%zx byte buffer\n",
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
			"rtkit-test: no GPU VA space for a 0x%zx byte buffer\n",
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

static void agx_rtkit_test_shmem_destroy(void *cookie,
					 struct apple_rtkit_shmem *bfr)
{
	struct agx_rtkit_test *priv = cookie;
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

static const struct apple_rtkit_ops agx_rtkit_test_ops = {
	.crashed = agx_rtkit_test_crashed,
	.recv_message = agx_rtkit_test_recv,
	.shmem_setup = agx_rtkit_test_shmem_setup,
	.shmem_destroy = agx_rtkit_test_shmem_destroy,
};

/* Finds the GPU node's reserved-memory region called name */
int agx_rtkit_test_region(struct device *dev, const char *name,
			  struct resource *res)
{
	struct device_node *np;
	int idx, ret;

	idx = of_property_match_string(dev->of_node, "memory-region-names",
				       name);
	if (idx < 0) {
		dev_err(dev, "rtkit-test: no \"%s\" memory region\n", name);
		return -ENODEV;
	}
	np = of_parse_phandle(dev->of_node, "memory-region", idx);
	if (!np) {
		dev_err(dev, "rtkit-test: bad memory-region for \"%s\"\n",
			name);
		return -ENODEV;
	}
	ret = of_address_to_resource(np, 0, res);
	of_node_put(np);
	if (ret)
		dev_err(dev, "rtkit-test: no address for region \"%s\": %d\n",
			name, ret);
	return ret;
}

/* Undoes agx_rtkit_test_uat_init(), after RTKit freed its buffers */
static void agx_rtkit_test_uat_fini(void *data)
{
	struct agx_rtkit_test *priv = data;
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
static int agx_rtkit_test_uat_init(struct agx_rtkit_test *priv)
{
	struct device *dev = priv->dev;
	struct resource ttbs, pt;
	unsigned int l1_index;
	phys_addr_t l1_pa, l2_pa;
	int ret;

	ret = agx_rtkit_test_region(dev, "ttbs", &ttbs);
	if (ret)
		return ret;
	ret = agx_rtkit_test_region(dev, "pagetables", &pt);
	if (ret)
		return ret;
	if (resource_size(&ttbs) < UAT_TTBAT_SIZE) {
		dev_err(dev, "rtkit-test: ttbs region %pR is too small\n",
			&ttbs);
		return -EINVAL;
	}
	if (resource_size(&pt) < UAT_PAGE_SIZE ||
	    !IS_ALIGNED(pt.start, UAT_PAGE_SIZE)) {
		dev_err(dev, "rtkit-test: pagetables region %pR is not a page\n",
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
		dev_err(dev, "rtkit-test: cannot map ttbs region %pR\n", &ttbs);
		return PTR_ERR(priv->ttbat);
	}
	priv->root = devm_memremap(dev, pt.start, UAT_PAGE_SIZE, MEMREMAP_WB);
	if (IS_ERR(priv->root)) {
		dev_err(dev, "rtkit-test: cannot map pagetables region %pR\n",
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
		dev_err(dev, "rtkit-test: cannot allocate page tables\n");
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

	return devm_add_action_or_reset(dev, agx_rtkit_test_uat_fini, priv);
}

/* Is va in our root entry, outside the RTKit range? */
static bool agx_rtkit_test_heap_va(u64 va)
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
int agx_rtkit_test_uat_map(struct agx_rtkit_test *priv, u64 va,
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

		if (!agx_rtkit_test_heap_va(va) ||
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
void agx_rtkit_test_uat_unmap(struct agx_rtkit_test *priv, u64 va,
			      unsigned int npages)
{
	unsigned int i;

	mutex_lock(&priv->map_lock);
	for (i = 0; i < npages; i++, va += UAT_PAGE_SIZE) {
		struct page *table;

		if (!agx_rtkit_test_heap_va(va))
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

void agx_rtkit_test_set_run(struct agx_rtkit_test *priv, bool run)
{
	u32 ctrl = readl(priv->asc + ASC_CPU_CONTROL);

	if (run)
		ctrl |= ASC_CPU_CONTROL_RUN;
	else
		ctrl &= ~ASC_CPU_CONTROL_RUN;
	writel(ctrl, priv->asc + ASC_CPU_CONTROL);
}

static int agx_rtkit_test_echo(struct agx_rtkit_test *priv, u8 ep, u64 val)
{
	unsigned long left;
	bool crashed, have_reply;
	u64 reply;
	u8 reply_ep;
	int ret;

	spin_lock(&priv->lock);
	priv->have_reply = false;
	spin_unlock(&priv->lock);
	reinit_completion(&priv->event);

	ret = apple_rtkit_send_message(priv->rtk, ep, val, NULL, false);
	if (ret)
		return ret;

	left = wait_for_completion_timeout(&priv->event,
					   msecs_to_jiffies(ECHO_TIMEOUT_MS));

	spin_lock(&priv->lock);
	crashed = priv->crashed;
	have_reply = priv->have_reply;
	reply = priv->reply;
	reply_ep = priv->reply_ep;
	spin_unlock(&priv->lock);

	if (crashed)
		return -EIO;
	if (!have_reply)
		return left ? -EIO : -ETIMEDOUT;
	if (reply_ep != ep || reply != ~val) {
		dev_info(priv->dev,
			 "rtkit-test: echo 0x%016llx to ep 0x%02x, reply 0x%016llx from ep 0x%02x\n",
			 val, ep, reply, reply_ep);
		return -EIO;
	}
	return 0;
}

/* Runs one command line; returns 0 or a negative error code */
static int agx_rtkit_test_run(struct agx_rtkit_test *priv, char *line)
{
	char *verb = strsep(&line, " \t");
	char *arg1 = strsep(&line, " \t");
	char *arg2 = strsep(&line, " \t");
	bool two = arg1 && arg2 && !line;
	bool none = !arg1;
	u64 val;
	u8 ep;
	int ret;

	if (!strcmp(verb, "boot") && none) {
		agx_rtkit_test_set_run(priv, true);
		return apple_rtkit_boot(priv->rtk);
	}
	if (!strcmp(verb, "start-ep") && arg1 && !arg2) {
		ret = kstrtou8(arg1, 0, &ep);
		if (ret)
			return ret;
		return apple_rtkit_start_ep(priv->rtk, ep);
	}
	if (!strcmp(verb, "echo") && two) {
		ret = kstrtou8(arg1, 0, &ep);
		if (ret)
			return ret;
		ret = kstrtou64(arg2, 0, &val);
		if (ret)
			return ret;
		return agx_rtkit_test_echo(priv, ep, val);
	}
	if (!strcmp(verb, "idle") && none)
		return apple_rtkit_idle(priv->rtk);
	if (!strcmp(verb, "wake") && none)
		return apple_rtkit_wake(priv->rtk);
	if (!strcmp(verb, "shutdown") && none)
		return apple_rtkit_shutdown(priv->rtk);
	if (!strcmp(verb, "stop-cpu") && none) {
		agx_rtkit_test_set_run(priv, false);
		return 0;
	}
	if (!strcmp(verb, "reinit") && none) {
		ret = apple_rtkit_reinit(priv->rtk);
		if (ret)
			return ret;
		spin_lock(&priv->lock);
		priv->crashed = false;
		spin_unlock(&priv->lock);
		return 0;
	}
	if (!strncmp(verb, "gpu-", 4) && !arg2)
		return agx_gpu_run(priv, verb, arg1);
	return -EINVAL;
}

static ssize_t rtkit_cmd_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct agx_rtkit_test *priv = dev_get_drvdata(dev);
	size_t len = count;
	char *line;
	int ret;

	while (len && isspace(buf[len - 1]))
		len--;
	line = kstrndup(buf, len, GFP_KERNEL);
	if (!line)
		return -ENOMEM;

	mutex_lock(&priv->cmd_lock);
	ret = agx_rtkit_test_run(priv, skip_spaces(line));
	mutex_unlock(&priv->cmd_lock);
	kfree(line);

	if (ret)
		dev_info(dev, "rtkit-test: '%.*s': error %d\n", (int)len, buf,
			 ret);
	else
		dev_info(dev, "rtkit-test: '%.*s': ok\n", (int)len, buf);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(rtkit_cmd);

static ssize_t rtkit_state_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct agx_rtkit_test *priv = dev_get_drvdata(dev);
	const char *state = "down";
	unsigned int replies;
	bool crashed;
	u32 ctrl;

	if (apple_rtkit_is_crashed(priv->rtk))
		state = "crashed";
	else if (apple_rtkit_is_running(priv->rtk))
		state = "running";

	spin_lock(&priv->lock);
	crashed = priv->crashed;
	replies = priv->replies;
	spin_unlock(&priv->lock);
	ctrl = readl(priv->asc + ASC_CPU_CONTROL);

	return sysfs_emit(buf, "%s crashed=%d replies=%u run=%d\n", state,
			  crashed, replies, !!(ctrl & ASC_CPU_CONTROL_RUN));
}
static DEVICE_ATTR_RO(rtkit_state);

static ssize_t gpu_state_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return agx_gpu_state_show(dev_get_drvdata(dev), buf);
}
static DEVICE_ATTR_RO(gpu_state);

static struct attribute *agx_rtkit_test_attrs[] = {
	&dev_attr_rtkit_cmd.attr,
	&dev_attr_rtkit_state.attr,
	&dev_attr_gpu_state.attr,
	NULL
};
ATTRIBUTE_GROUPS(agx_rtkit_test);

/* Registered before RTKit, so it runs after RTKit is torn down */
static void agx_rtkit_test_stop_cpu(void *data)
{
	agx_rtkit_test_set_run(data, false);
}

static int agx_rtkit_test_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct agx_rtkit_test *priv;
	struct resource *res;
	int ret;

	priv = devm_kzalloc(dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->dev = dev;
	spin_lock_init(&priv->lock);
	init_completion(&priv->event);
	ret = devm_mutex_init(dev, &priv->cmd_lock);
	if (ret)
		return ret;
	ret = devm_mutex_init(dev, &priv->map_lock);
	if (ret)
		return ret;
	ret = devm_mutex_init(dev, &priv->gpu_lock);
	if (ret)
		return ret;

	res = platform_get_resource_byname(pdev, IORESOURCE_MEM, "asc");
	if (!res || resource_size(res) < ASC_MAP_SIZE)
		return dev_err_probe(dev, -EINVAL, "no usable \"asc\" reg\n");
	priv->asc = devm_ioremap(dev, res->start, ASC_MAP_SIZE);
	if (!priv->asc)
		return -ENOMEM;
	platform_set_drvdata(pdev, priv);

	/* Before RTKit, so that it is torn down after RTKit's buffers */
	ret = agx_rtkit_test_uat_init(priv);
	if (ret)
		return ret;

	ret = devm_add_action_or_reset(dev, agx_rtkit_test_stop_cpu, priv);
	if (ret)
		return ret;

	priv->rtk = devm_apple_rtkit_init(dev, priv, NULL, 0,
					  &agx_rtkit_test_ops);
	if (IS_ERR(priv->rtk))
		return dev_err_probe(dev, PTR_ERR(priv->rtk),
				     "RTKit init failed\n");

	dev_info(dev, "rtkit-test: probed\n");
	return 0;
}

static const struct of_device_id agx_rtkit_test_of_match[] = {
	{ .compatible = "apple,agx-t8103" },
	{ .compatible = "apple,agx-g13g" },	/* Linux's own t8103.dtsi */
	{ }
};
MODULE_DEVICE_TABLE(of, agx_rtkit_test_of_match);

static struct platform_driver agx_rtkit_test_driver = {
	.driver = {
		.name = "agx-rtkit-test",
		.of_match_table = agx_rtkit_test_of_match,
		.dev_groups = agx_rtkit_test_groups,
	},
	.probe = agx_rtkit_test_probe,
};
module_platform_driver(agx_rtkit_test_driver);

MODULE_DESCRIPTION("Test driver: the GPU coprocessor of QEMU's apple-m1 through RTKit");
MODULE_LICENSE("GPL");
