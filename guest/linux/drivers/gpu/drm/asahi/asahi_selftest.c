// SPDX-License-Identifier: GPL-2.0-only
/*
 * asahi: the driver's self-tests, through sysfs attributes of the GPU
 * device (they replace the former out-of-tree agx-rtkit-test module).
 *
 *   selftest (write-only): one command per write(); the write fails with
 *   the command's error code.  Loaded with manual_boot=1, the driver
 *   probes without booting the firmware and these drive it:
 *     boot             set CPU_CONTROL.RUN, then run RTKit's handshake
 *     start-ep <ep>    start an application endpoint
 *     echo <ep> <val>  send <val> to <ep>; the reply must be ~<val>
 *     idle             put the coprocessor into idle
 *     wake             wake it from idle or sleep
 *     shutdown         put it to sleep and reset the library state
 *     stop-cpu         clear CPU_CONTROL.RUN
 *     reinit           forget the library's state (CPU stopped; a crash too)
 *     gpu-init         after boot: the GPU firmware's initialisation
 *   and, whether the probe booted the firmware or gpu-init did, the
 *   firmware self-tests of asahi_fwtest.c:
 *     gpu-jobs <n>     submit n jobs to the GPU and check their completion
 *     gpu-fault        submit jobs until one takes a GPU fault (armed by
 *                      the host), check the fault and recover from it
 *
 *   rtkit_state (read-only): "<running|crashed|down> crashed=<0|1>
 *   replies=<n> run=<0|1>".
 *
 *   gpu_state (read-only): the firmware part's counters (asahi_fw.c).
 *
 * Echo replies are waited for on a completion that the RTKit callbacks
 * signal from the mailbox's receive interrupt: nothing polls.
 *
 * Copyright (c) 2026 The QEMU AGX authors
 */

#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/soc/apple/rtkit.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "asahi_drv.h"

#define ECHO_TIMEOUT_MS		1000

/* RTKit recv_message for endpoints other than the GPU firmware's */
static bool asahi_selftest_recv(struct asahi_device *priv, u8 ep, u64 msg)
{
	if (!priv->manual_boot)
		dev_err(priv->dev, "message 0x%016llx on endpoint 0x%02x\n",
			msg, ep);
	spin_lock(&priv->lock);
	priv->st_have_reply = true;
	priv->st_reply_ep = ep;
	priv->st_reply = msg;
	priv->st_replies++;
	spin_unlock(&priv->lock);
	complete(&priv->st_event);
	return true;
}

/* RTKit crashed: no reply will come */
static void asahi_selftest_crashed(struct asahi_device *priv)
{
	complete(&priv->st_event);
}

static const struct asahi_rtkit_hooks asahi_selftest_hooks = {
	.recv = asahi_selftest_recv,
	.crashed = asahi_selftest_crashed,
};

/* Echo replies of the endpoints the firmware part does not take */
void asahi_selftest_add_hooks(struct asahi_device *priv)
{
	init_completion(&priv->st_event);
	asahi_rtkit_add_hooks(priv, &asahi_selftest_hooks);
}

static int asahi_selftest_echo(struct asahi_device *priv, u8 ep, u64 val)
{
	unsigned long left;
	bool crashed, have_reply;
	u64 reply;
	u8 reply_ep;
	int ret;

	spin_lock(&priv->lock);
	priv->st_have_reply = false;
	spin_unlock(&priv->lock);
	reinit_completion(&priv->st_event);

	ret = apple_rtkit_send_message(priv->rtk, ep, val, NULL, false);
	if (ret)
		return ret;

	left = wait_for_completion_timeout(&priv->st_event,
					   msecs_to_jiffies(ECHO_TIMEOUT_MS));

	spin_lock(&priv->lock);
	crashed = priv->crashed;
	have_reply = priv->st_have_reply;
	reply = priv->st_reply;
	reply_ep = priv->st_reply_ep;
	spin_unlock(&priv->lock);

	if (crashed)
		return -EIO;
	if (!have_reply)
		return left ? -EIO : -ETIMEDOUT;
	if (reply_ep != ep || reply != ~val) {
		dev_info(priv->dev,
			 "selftest: echo 0x%016llx to ep 0x%02x, reply 0x%016llx from ep 0x%02x\n",
			 val, ep, reply, reply_ep);
		return -EIO;
	}
	return 0;
}

/* The commands that drive RTKit and the boot: manual_boot=1 only */
static int asahi_selftest_rtkit(struct asahi_device *priv, const char *verb,
				const char *arg1, const char *arg2)
{
	bool none = !arg1;
	u64 val;
	u8 ep;
	int ret;

	if (!strcmp(verb, "boot") && none)
		return asahi_rtkit_boot(priv);
	if (!strcmp(verb, "start-ep") && arg1 && !arg2) {
		ret = kstrtou8(arg1, 0, &ep);
		if (ret)
			return ret;
		return apple_rtkit_start_ep(priv->rtk, ep);
	}
	if (!strcmp(verb, "echo") && arg1 && arg2) {
		ret = kstrtou8(arg1, 0, &ep);
		if (ret)
			return ret;
		ret = kstrtou64(arg2, 0, &val);
		if (ret)
			return ret;
		return asahi_selftest_echo(priv, ep, val);
	}
	if (!strcmp(verb, "idle") && none)
		return apple_rtkit_idle(priv->rtk);
	if (!strcmp(verb, "wake") && none)
		return apple_rtkit_wake(priv->rtk);
	if (!strcmp(verb, "shutdown") && none)
		return apple_rtkit_shutdown(priv->rtk);
	if (!strcmp(verb, "stop-cpu") && none) {
		asahi_rtkit_set_run(priv, false);
		return 0;
	}
	if (!strcmp(verb, "reinit") && none) {
		ret = apple_rtkit_reinit(priv->rtk);
		if (ret)
			return ret;
		spin_lock(&priv->lock);
		WRITE_ONCE(priv->crashed, false);
		spin_unlock(&priv->lock);
		return 0;
	}
	if (!strcmp(verb, "gpu-init") && none)
		return asahi_gpu_run(priv, verb, NULL);
	return -EINVAL;
}

/* Runs one command line; returns 0 or a negative error code */
static int asahi_selftest_run(struct asahi_device *priv, char *line)
{
	char *verb = strsep(&line, " \t");
	char *arg1 = strsep(&line, " \t");
	char *arg2 = strsep(&line, " \t");

	if (line)
		return -EINVAL;
	if (!strcmp(verb, "gpu-jobs") || !strcmp(verb, "gpu-fault"))
		return arg2 ? -EINVAL : asahi_gpu_run(priv, verb, arg1);
	/* The driver's own boot is not to be undone behind its back */
	if (!priv->manual_boot)
		return -EPERM;
	return asahi_selftest_rtkit(priv, verb, arg1, arg2);
}

static ssize_t selftest_store(struct device *dev,
			      struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct asahi_device *priv = dev_get_drvdata(dev);
	size_t len = count;
	char *line;
	int ret;

	while (len && isspace(buf[len - 1]))
		len--;
	line = kstrndup(buf, len, GFP_KERNEL);
	if (!line)
		return -ENOMEM;

	mutex_lock(&priv->cmd_lock);
	ret = asahi_selftest_run(priv, skip_spaces(line));
	mutex_unlock(&priv->cmd_lock);
	kfree(line);

	if (ret)
		dev_info(dev, "selftest '%.*s': error %d\n", (int)len, buf, ret);
	else
		dev_info(dev, "selftest '%.*s': ok\n", (int)len, buf);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(selftest);

static ssize_t rtkit_state_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct asahi_device *priv = dev_get_drvdata(dev);
	const char *state = "down";
	unsigned int replies;
	bool crashed;

	if (apple_rtkit_is_crashed(priv->rtk))
		state = "crashed";
	else if (apple_rtkit_is_running(priv->rtk))
		state = "running";

	spin_lock(&priv->lock);
	crashed = priv->crashed;
	replies = priv->st_replies;
	spin_unlock(&priv->lock);

	return sysfs_emit(buf, "%s crashed=%d replies=%u run=%d\n", state,
			  crashed, replies, asahi_rtkit_get_run(priv));
}
static DEVICE_ATTR_RO(rtkit_state);

static ssize_t gpu_state_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return asahi_gpu_state_show(dev_get_drvdata(dev), buf);
}
static DEVICE_ATTR_RO(gpu_state);

static struct attribute *asahi_dev_attrs[] = {
	&dev_attr_selftest.attr,
	&dev_attr_rtkit_state.attr,
	&dev_attr_gpu_state.attr,
	NULL
};

static const struct attribute_group asahi_dev_group = {
	.attrs = asahi_dev_attrs,
};

const struct attribute_group *asahi_dev_groups[] = {
	&asahi_dev_group,
	NULL
};
