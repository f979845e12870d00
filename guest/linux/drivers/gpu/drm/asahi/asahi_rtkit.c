// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the GPU's ASC coprocessor through the kernel's RTKit library.
 *
 * RTKit's buffers are mapped firmware read/write into the kernel's UAT
 * context (asahi_mmu.c) at 0xffffffae_00000000 and up, the IOVA then
 * handed to the firmware.  Its messages and its crash go to the hooks the
 * driver's parts registered (asahi_rtkit_add_hooks()): the GPU firmware
 * part (asahi_fw.c), then the self-tests (asahi_selftest.c).
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bits.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/spinlock.h>

#include "asahi_drv.h"

/* Only the CPU control page of the "asc" block; the mailbox has its node */
#define ASC_MAP_SIZE		0x4000
#define ASC_CPU_CONTROL		0x44
#define ASC_CPU_CONTROL_RUN	BIT(4)

/* Called before asahi_rtkit_init(): the hooks never change after it */
void asahi_rtkit_add_hooks(struct asahi_device *priv,
			   const struct asahi_rtkit_hooks *hooks)
{
	if (!WARN_ON(priv->nhooks >= ASAHI_RTKIT_MAX_HOOKS))
		priv->hooks[priv->nhooks++] = hooks;
}

static void asahi_rtkit_crashed(void *cookie, const void *crashlog,
				size_t crashlog_size)
{
	struct asahi_device *priv = cookie;
	unsigned int i;

	spin_lock(&priv->lock);
	WRITE_ONCE(priv->crashed, true);
	spin_unlock(&priv->lock);
	dev_err(priv->dev, "GPU firmware crashed, failing all jobs\n");
	for (i = 0; i < priv->nhooks; i++)
		priv->hooks[i]->crashed(priv);
}

/* The first hooks that take the message get it */
static void asahi_rtkit_recv(void *cookie, u8 ep, u64 msg)
{
	struct asahi_device *priv = cookie;
	unsigned int i;

	for (i = 0; i < priv->nhooks; i++) {
		if (priv->hooks[i]->recv(priv, ep, msg))
			return;
	}
	dev_err(priv->dev, "message 0x%016llx on endpoint 0x%02x\n", msg, ep);
}

/* In the mailbox's interrupt: the first hook that takes it early gets it */
static bool asahi_rtkit_recv_early(void *cookie, u8 ep, u64 msg)
{
	struct asahi_device *priv = cookie;
	unsigned int i;

	for (i = 0; i < priv->nhooks; i++) {
		if (priv->hooks[i]->recv_early &&
		    priv->hooks[i]->recv_early(priv, ep, msg))
			return true;
	}
	return false;
}

/*
 * RTKit asks for a buffer with IOVA 0: allocate it, map it into the kernel
 * UAT context and answer with its GPU VA.
 */
static int asahi_rtkit_shmem_setup(void *cookie,
				      struct apple_rtkit_shmem *bfr)
{
	struct asahi_device *priv = cookie;
	unsigned int npages;
	struct page *pages;
	phys_addr_t pa;
	u64 iova;
	int ret;

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

	ret = asahi_kuat_map_rtkit(priv, pa, npages, &iova);
	if (ret) {
		__free_pages(pages, get_order(npages * UAT_PAGE_SIZE));
		dev_err(priv->dev,
			"no GPU VA space for a 0x%zx byte buffer\n",
			bfr->size);
		return ret;
	}

	bfr->buffer = page_address(pages);
	bfr->iova = iova;
	bfr->private = pages;
	return 0;
}

static void asahi_rtkit_shmem_destroy(void *cookie,
					 struct apple_rtkit_shmem *bfr)
{
	struct asahi_device *priv = cookie;
	unsigned int npages;

	if (!bfr->private)
		return;
	npages = DIV_ROUND_UP(bfr->size, UAT_PAGE_SIZE);
	asahi_kuat_unmap_rtkit(priv, bfr->iova, npages);
	__free_pages(bfr->private, get_order(npages * UAT_PAGE_SIZE));
	bfr->private = NULL;
	bfr->buffer = NULL;
}

static const struct apple_rtkit_ops asahi_rtkit_ops = {
	.crashed = asahi_rtkit_crashed,
	.recv_message = asahi_rtkit_recv,
	.recv_message_early = asahi_rtkit_recv_early,
	.shmem_setup = asahi_rtkit_shmem_setup,
	.shmem_destroy = asahi_rtkit_shmem_destroy,
};

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
 * RTKit, its coprocessor not started yet; the kernel's UAT context is up
 * (asahi_kuat_init()).  devm tears RTKit down before the page tables.
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
