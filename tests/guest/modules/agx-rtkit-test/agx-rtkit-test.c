// SPDX-License-Identifier: GPL-2.0-only
/*
 * agx-rtkit-test: drive the GPU coprocessor of QEMU's apple-m1 machine with
 * the kernel's own RTKit library (drivers/soc/apple/rtkit.c).
 *
 * Binds to the GPU node and exposes two sysfs attributes on it:
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
 *
 *   rtkit_state (read-only): "<running|crashed|down> crashed=<0|1>
 *   replies=<n> run=<0|1>".
 *
 * Everything waits on completions signalled from the RTKit callbacks, which
 * the mailbox's receive interrupt feeds: nothing polls.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/bits.h>
#include <linux/ctype.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mod_devicetable.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

/* Only the CPU control page of the "asc" block; the mailbox has its node */
#define ASC_MAP_SIZE		0x4000
#define ASC_CPU_CONTROL		0x44
#define ASC_CPU_CONTROL_RUN	BIT(4)

#define ECHO_TIMEOUT_MS		1000

struct agx_rtkit_test {
	struct device *dev;
	void __iomem *asc;
	struct apple_rtkit *rtk;
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
};

static void agx_rtkit_test_crashed(void *cookie)
{
	struct agx_rtkit_test *priv = cookie;

	spin_lock(&priv->lock);
	priv->crashed = true;
	spin_unlock(&priv->lock);
	dev_info(priv->dev, "rtkit-test: firmware crashed\n");
	complete(&priv->event);
}

static void agx_rtkit_test_recv(void *cookie, u8 ep, u64 msg)
{
	struct agx_rtkit_test *priv = cookie;

	spin_lock(&priv->lock);
	priv->have_reply = true;
	priv->reply_ep = ep;
	priv->reply = msg;
	priv->replies++;
	spin_unlock(&priv->lock);
	complete(&priv->event);
}

static const struct apple_rtkit_ops agx_rtkit_test_ops = {
	.crashed = agx_rtkit_test_crashed,
	.recv_message = agx_rtkit_test_recv,
};

static void agx_rtkit_test_set_run(struct agx_rtkit_test *priv, bool run)
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

static struct attribute *agx_rtkit_test_attrs[] = {
	&dev_attr_rtkit_cmd.attr,
	&dev_attr_rtkit_state.attr,
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

	/* RAM starts at 0x8_0000_0000: RTKit's buffers live above 4 GiB */
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "cannot use 64-bit DMA\n");

	res = platform_get_resource_byname(pdev, IORESOURCE_MEM, "asc");
	if (!res || resource_size(res) < ASC_MAP_SIZE)
		return dev_err_probe(dev, -EINVAL, "no usable \"asc\" reg\n");
	priv->asc = devm_ioremap(dev, res->start, ASC_MAP_SIZE);
	if (!priv->asc)
		return -ENOMEM;
	platform_set_drvdata(pdev, priv);

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
