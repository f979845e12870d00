/*
 * vk-compute: a Vulkan program for the Mesa guest.  Creates a device on
 * Mesa's asahi driver (Honeykrisp), allocates and binds host-visible
 * memory, records a compute dispatch (vk-compute.spvasm) and a buffer copy,
 * submits them with a fence and a timeline semaphore, waits for both and
 * reports the submissions made and the time taken.  The model does not
 * run shaders, and Honeykrisp copies buffers with a compute shader, so only
 * completion is checked, not the data.
 *
 *   vk-compute [-n LOOPS]   LOOPS submissions (default 4), all must succeed
 *   vk-compute -n N --after FILE
 *                           N submissions, then creates FILE.ready, waits
 *                           (up to 30 s) for FILE to exist, then N more
 *                           submissions on the same device
 *   vk-compute --fault      asks the host to inject a GPU fault (the
 *                           "AGX-TEST: host:" request of boot-test.py),
 *                           then submits until one fails: its fence,
 *                           exported as a sync_file, must carry -EIO;
 *                           then (the guest driver's lost_on_fault=1
 *                           refusing the faulted queue's SUBMITs) the
 *                           next submission must not complete, and what
 *                           Mesa reports of it is printed
 *
 * Prints "vk-compute: ..." lines; exits 0 on success.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>

#include "tap.h"
#include "vk-compute-spv.h"
#include "vk-util.h"

#define N_WORDS 1024
#define BUF_SIZE (N_WORDS * sizeof(uint32_t))
#define FAULT_TRIES 50
#define LOST_POLLS 20            /* 100 ms each */

typedef struct Gpu {
    VkInstance inst;
    VkuDev d;
    VkBuffer buf[3];            /* shader data, copy source, copy dest */
    VkDeviceMemory mem;
    uint32_t *map;
    uint32_t *dst;              /* the copy's destination, mapped */
    VkDescriptorSetLayout dsl;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipe;
    VkCommandPool cpool;
    VkCommandBuffer cmd;
    VkSemaphore timeline;
    uint64_t timeline_value;
    PFN_vkGetFenceFdKHR get_fence_fd;
} Gpu;

static void open_device(Gpu *g)
{
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .timelineSemaphore = VK_TRUE,
    };
    const char *exts[] = { VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME };
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + VK_MAX_DRIVER_NAME_SIZE +
              VK_MAX_DRIVER_INFO_SIZE + 8];
    VkPhysicalDevice pdev;
    VkDriverId id;

    vku_prog = "vk-compute";
    vku_exit_status = 1;
    g->inst = vku_instance("vk-compute", VK_API_VERSION_1_3);
    pdev = vku_find_device(g->inst, 0, 0);
    if (pdev == VK_NULL_HANDLE) {
        printf("vk-compute: no Vulkan device\n");
        exit(1);
    }
    id = vku_device_name(pdev, name, sizeof(name));
    printf("vk-compute: device %s\n", name);
    if (id != VK_DRIVER_ID_MESA_HONEYKRISP) {
        printf("vk-compute: not Mesa's asahi driver (id %d)\n", id);
        exit(1);
    }
    if (!vku_open(&g->d, pdev, VK_QUEUE_COMPUTE_BIT, &f12, 1, exts)) {
        printf("vk-compute: no compute queue\n");
        exit(1);
    }
    g->get_fence_fd = (PFN_vkGetFenceFdKHR)
        vkGetDeviceProcAddr(g->d.dev, "vkGetFenceFdKHR");
}

static void make_buffers(Gpu *g)
{
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = BUF_SIZE,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    };
    VkMemoryRequirements req;
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
    };
    VkDeviceSize stride;
    int i;

    for (i = 0; i < 3; i++) {
        CHECK_VK(vkCreateBuffer(g->d.dev, &bci, NULL, &g->buf[i]));
    }
    vkGetBufferMemoryRequirements(g->d.dev, g->buf[0], &req);
    stride = (req.size + req.alignment - 1) & ~(req.alignment - 1);
    mai.memoryTypeIndex = vku_mem_type(&g->d, req.memoryTypeBits,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    mai.allocationSize = 3 * stride;
    CHECK_VK(vkAllocateMemory(g->d.dev, &mai, NULL, &g->mem));
    for (i = 0; i < 3; i++) {
        CHECK_VK(vkBindBufferMemory(g->d.dev, g->buf[i], g->mem, i * stride));
    }
    CHECK_VK(vkMapMemory(g->d.dev, g->mem, 0, VK_WHOLE_SIZE, 0,
                         (void **)&g->map));
    for (i = 0; i < N_WORDS; i++) {
        g->map[i] = i;
        g->map[stride / 4 + i] = 0xc0de0000 + i;
        g->map[2 * stride / 4 + i] = 0;
    }
    g->dst = g->map + 2 * stride / 4;
    printf("vk-compute: 3 buffers of %zu bytes in one %llu-byte allocation "
           "(memory type %u)\n", (size_t)BUF_SIZE,
           (unsigned long long)mai.allocationSize, mai.memoryTypeIndex);
}

static void make_pipeline(Gpu *g)
{
    VkDescriptorSetLayoutBinding b = {
        .binding = 0,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
    };
    VkDescriptorSetLayoutCreateInfo dlci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 1,
        .pBindings = &b,
    };
    VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
    VkDescriptorPoolCreateInfo dpci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 1,
        .poolSizeCount = 1,
        .pPoolSizes = &ps,
    };
    VkDescriptorSetAllocateInfo dsai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorSetCount = 1,
    };
    VkDescriptorBufferInfo dbi = { .range = VK_WHOLE_SIZE };
    VkWriteDescriptorSet w = {
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &dbi,
    };
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
    };

    CHECK_VK(vkCreateDescriptorSetLayout(g->d.dev, &dlci, NULL, &g->dsl));
    CHECK_VK(vkCreateDescriptorPool(g->d.dev, &dpci, NULL, &g->pool));
    dsai.descriptorPool = g->pool;
    dsai.pSetLayouts = &g->dsl;
    CHECK_VK(vkAllocateDescriptorSets(g->d.dev, &dsai, &g->set));
    dbi.buffer = g->buf[0];
    w.dstSet = g->set;
    vkUpdateDescriptorSets(g->d.dev, 1, &w, 0, NULL);
    plci.pSetLayouts = &g->dsl;
    CHECK_VK(vkCreatePipelineLayout(g->d.dev, &plci, NULL, &g->layout));
    g->pipe = vku_compute_pipeline(&g->d, g->layout, vk_compute_spv,
                                   sizeof(vk_compute_spv));
}

/* The dispatch, a barrier, the copy: recorded once, submitted each loop */
static void record(Gpu *g)
{
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .queueFamilyIndex = g->d.family,
    };
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_HOST_READ_BIT,
    };
    VkBufferCopy region = { .size = BUF_SIZE };
    VkSemaphoreTypeCreateInfo stci = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkSemaphoreCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
        .pNext = &stci,
    };

    CHECK_VK(vkCreateCommandPool(g->d.dev, &cpci, NULL, &g->cpool));
    g->cmd = vku_begin(&g->d, g->cpool, 0);
    vkCmdBindPipeline(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipe);
    vkCmdBindDescriptorSets(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                            g->layout, 0, 1, &g->set, 0, NULL);
    vkCmdDispatch(g->cmd, N_WORDS / 64, 1, 1);
    vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT |
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL,
                         0, NULL);
    vkCmdCopyBuffer(g->cmd, g->buf[1], g->buf[2], 1, &region);
    CHECK_VK(vkEndCommandBuffer(g->cmd));
    CHECK_VK(vkCreateSemaphore(g->d.dev, &sci, NULL, &g->timeline));
}

/*
 * One submission with a fence and a timeline semaphore signal.  Returns
 * the fence's sync_file status (1 signalled, < 0 the error it carries) and
 * stores what vkWaitForFences and vkWaitSemaphores said.
 */
static int submit(Gpu *g, VkResult *fence_res, VkResult *sem_res)
{
    VkExportFenceCreateInfo efci = {
        .sType = VK_STRUCTURE_TYPE_EXPORT_FENCE_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT,
    };
    VkFenceCreateInfo fci = {
        .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
        .pNext = &efci,
    };
    uint64_t value = ++g->timeline_value;
    VkTimelineSemaphoreSubmitInfo tssi = {
        .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
        .signalSemaphoreValueCount = 1,
        .pSignalSemaphoreValues = &value,
    };
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .pNext = &tssi,
        .commandBufferCount = 1,
        .pCommandBuffers = &g->cmd,
        .signalSemaphoreCount = 1,
        .pSignalSemaphores = &g->timeline,
    };
    VkSemaphoreWaitInfo swi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &g->timeline,
        .pValues = &value,
    };
    VkFenceGetFdInfoKHR gfi = {
        .sType = VK_STRUCTURE_TYPE_FENCE_GET_FD_INFO_KHR,
        .handleType = VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT,
    };
    struct sync_file_info info = { 0 };
    struct pollfd pfd = { .events = POLLIN };
    VkFence fence;
    VkResult r;
    int status;

    CHECK_VK(vkCreateFence(g->d.dev, &fci, NULL, &fence));
    r = vkQueueSubmit(g->d.queue, 1, &si, fence);
    if (r != VK_SUCCESS) {
        printf("vk-compute: vkQueueSubmit: %d\n", r);
        vkDestroyFence(g->d.dev, fence, NULL);
        *fence_res = *sem_res = r;
        return -EINVAL;
    }
    *fence_res = vkWaitForFences(g->d.dev, 1, &fence, VK_TRUE, 10000000000ull);
    *sem_res = vkWaitSemaphores(g->d.dev, &swi, 10000000000ull);
    /* The signalled fence as a sync_file: its status holds a GPU error */
    gfi.fence = fence;
    pfd.fd = -1;
    if (g->get_fence_fd && g->get_fence_fd(g->d.dev, &gfi, &pfd.fd) ==
        VK_SUCCESS && pfd.fd >= 0) {
        poll(&pfd, 1, 10000);
        status = ioctl(pfd.fd, SYNC_IOC_FILE_INFO, &info) ? -errno
                                                          : info.status;
        close(pfd.fd);
    } else {
        status = *fence_res == VK_SUCCESS ? 1 : -EIO;
    }
    vkDestroyFence(g->d.dev, fence, NULL);
    return status;
}

/*
 * After the fault, with the guest driver's lost_on_fault=1, the kernel
 * refuses the faulted queue's next SUBMIT (ECANCELED).  What Mesa makes
 * of that: VK_ERROR_DEVICE_LOST, from vkQueueSubmit or (when the runtime
 * submits from a thread of its own) from the fence's status; or, as
 * Honeykrisp in Mesa 26.1 does, nothing: its queue_submit_single() only
 * asserts on a failed ioctl and reports success, so the device is not
 * lost and the fence never signals.  Either way the fence must not
 * signal; it is polled, not waited on.
 */
static int submit_refused(Gpu *g)
{
    VkFenceCreateInfo fci = {
        .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
    };
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &g->cmd,
    };
    VkResult r, fs = VK_NOT_READY;
    VkFence fence;
    int i;

    CHECK_VK(vkCreateFence(g->d.dev, &fci, NULL, &fence));
    r = vkQueueSubmit(g->d.queue, 1, &si, fence);
    for (i = 0; r == VK_SUCCESS && i < LOST_POLLS; i++) {
        fs = vkGetFenceStatus(g->d.dev, fence);
        if (fs != VK_NOT_READY) {
            break;
        }
        usleep(100 * 1000);
    }
    printf("vk-compute: after the fault: vkQueueSubmit %d, "
           "vkGetFenceStatus %d after %d ms\n", r, fs, i * 100);
    if (r == VK_ERROR_DEVICE_LOST || fs == VK_ERROR_DEVICE_LOST) {
        printf("vk-compute: the device reports VK_ERROR_DEVICE_LOST\n");
        return 0;
    }
    if (r == VK_SUCCESS && fs == VK_NOT_READY) {
        printf("vk-compute: the refused submission is not reported: "
               "no VK_ERROR_DEVICE_LOST, its fence never signals\n");
        return 0;
    }
    printf("vk-compute: FAIL: the submission after the fault completed\n");
    return 1;
}

int main(int argc, char **argv)
{
    Gpu g = { 0 };
    int loops = 4, fault = 0, i, status = 1, rounds = 1, r;
    const char *after = NULL;
    VkResult fr = VK_SUCCESS, sr = VK_SUCCESS;
    uint64_t counter = 0;
    double t0, t1;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fault")) {
            fault = 1;
        } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            loops = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--after") && i + 1 < argc) {
            after = argv[++i];
            rounds = 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    t0 = now_ms();
    open_device(&g);
    make_buffers(&g);
    make_pipeline(&g);
    record(&g);
    t1 = now_ms();
    printf("vk-compute: set up in %.0f ms\n", t1 - t0);

    if (fault) {
        status = submit(&g, &fr, &sr);
        printf("vk-compute: before the fault: status %d\n", status);
        printf("AGX-TEST: host: qom-set /machine/gpu-asc inject-fault "
               "\"gpu-fault\"\n");
        for (i = 0; i < FAULT_TRIES && status == 1; i++) {
            status = submit(&g, &fr, &sr);
            if (status == 1) {
                usleep(100 * 1000);
            }
        }
        vkGetSemaphoreCounterValue(g.d.dev, g.timeline, &counter);
        printf("vk-compute: fault: submission %d: sync_file status %d (%s), "
               "vkWaitForFences %d, vkWaitSemaphores %d, timeline %llu\n",
               i, status, status < 0 ? strerror(-status) : "ok", fr, sr,
               (unsigned long long)counter);
        if (status != -EIO) {
            printf("vk-compute: FAIL: no -EIO on the faulting submission\n");
            return 1;
        }
        return submit_refused(&g);
    }

    for (r = 0; r < rounds; r++) {
        if (r == 1) {
            char ready[256];

            snprintf(ready, sizeof(ready), "%s.ready", after);
            fclose(fopen(ready, "w"));
        }
        for (i = 0; r == 1 && i < 300 && access(after, F_OK); i++) {
            usleep(100 * 1000);
        }
        if (r == 1) {
            printf("vk-compute: %s after %d ms, %d more submissions\n",
                   access(after, F_OK) ? "no" : after, i * 100, loops);
        }
        for (i = 0; i < loops; i++) {
            status = submit(&g, &fr, &sr);
            if (status != 1 || fr != VK_SUCCESS || sr != VK_SUCCESS) {
                printf("vk-compute: FAIL: submission %d: sync_file status "
                       "%d, vkWaitForFences %d, vkWaitSemaphores %d\n",
                       r * loops + i, status, fr, sr);
                return 1;
            }
        }
    }
    loops *= rounds;
    vkGetSemaphoreCounterValue(g.d.dev, g.timeline, &counter);
    if (counter != (uint64_t)loops) {
        printf("vk-compute: FAIL: timeline at %llu after %d submissions\n",
               (unsigned long long)counter, loops);
        return 1;
    }
    printf("vk-compute: %d submissions (dispatch %u groups + copy %zu "
           "bytes each) in %.0f ms, timeline %llu; dest[1] = 0x%08x\n",
           loops, N_WORDS / 64, (size_t)BUF_SIZE, now_ms() - t1,
           (unsigned long long)counter, g.dst[1]);
    vkDeviceWaitIdle(g.d.dev);
    vkDestroyDevice(g.d.dev, NULL);
    vkDestroyInstance(g.inst, NULL);
    printf("vk-compute: PASS\n");
    return 0;
}
