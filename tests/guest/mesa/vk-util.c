/*
 * Vulkan set-up of the Mesa guest's Vulkan programs (vk-util.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "vk-util.h"

const char *vku_prog = "vk";
int vku_exit_status = 2;

void vku_check(VkResult r, const char *expr, const char *file, int line)
{
    if (r != VK_SUCCESS) {
        printf("%s: %s:%d: %s failed: %d\n", vku_prog, file, line, expr, r);
        exit(vku_exit_status);
    }
}

VkInstance vku_instance(const char *app, uint32_t api_version)
{
    VkApplicationInfo ai = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = app,
        .apiVersion = api_version,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &ai,
    };
    VkInstance inst;

    CHECK_VK(vkCreateInstance(&ici, NULL, &inst));
    return inst;
}

VkPhysicalDevice vku_find_device(VkInstance inst, VkDriverId want, int nth)
{
    VkPhysicalDevice pd[16];
    uint32_t n = 16;

    if (vkEnumeratePhysicalDevices(inst, &n, pd) < 0) {
        return VK_NULL_HANDLE;
    }
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceDriverProperties drv = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
        };
        VkPhysicalDeviceProperties2 p2 = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
            .pNext = &drv,
        };

        vkGetPhysicalDeviceProperties2(pd[i], &p2);
        if ((!want || drv.driverID == want) && nth-- == 0) {
            return pd[i];
        }
    }
    return VK_NULL_HANDLE;
}

VkDriverId vku_device_name(VkPhysicalDevice pdev, char *name, size_t len)
{
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &drv,
    };

    vkGetPhysicalDeviceProperties2(pdev, &p2);
    snprintf(name, len, "%s (%s %s)", p2.properties.deviceName,
             drv.driverName, drv.driverInfo);
    return drv.driverID;
}

const char *vku_driver_name(VkDriverId id)
{
    return id == VK_DRIVER_ID_MESA_HONEYKRISP ? "honeykrisp"
           : id == VK_DRIVER_ID_MESA_LLVMPIPE ? "lavapipe" : "other";
}

bool vku_open(VkuDev *d, VkPhysicalDevice pdev, VkQueueFlags flags,
              const void *features, uint32_t n_ext,
              const char *const *exts)
{
    VkQueueFamilyProperties qf[8];
    uint32_t nqf = 8;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = features,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = n_ext,
        .ppEnabledExtensionNames = exts,
    };

    d->pdev = pdev;
    vkGetPhysicalDeviceMemoryProperties(pdev, &d->mem);
    vkGetPhysicalDeviceQueueFamilyProperties(pdev, &nqf, qf);
    for (d->family = 0; d->family < nqf; d->family++) {
        if ((qf[d->family].queueFlags & flags) == flags) {
            break;
        }
    }
    if (d->family == nqf) {
        return false;
    }
    d->ts_bits = qf[d->family].timestampValidBits;
    qci.queueFamilyIndex = d->family;
    CHECK_VK(vkCreateDevice(pdev, &dci, NULL, &d->dev));
    vkGetDeviceQueue(d->dev, d->family, 0, &d->queue);
    return true;
}

uint32_t vku_mem_type(const VkuDev *d, uint32_t bits,
                      VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < d->mem.memoryTypeCount; i++) {
        if ((bits & (1u << i)) &&
            (d->mem.memoryTypes[i].propertyFlags & want) == want) {
            return i;
        }
    }
    printf("%s: no memory type with flags 0x%x\n", vku_prog, want);
    exit(vku_exit_status);
}

VkDeviceMemory vku_alloc(const VkuDev *d, VkMemoryRequirements req,
                         VkMemoryPropertyFlags want, const void *next)
{
    VkMemoryAllocateInfo mai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = next,
        .allocationSize = req.size,
        .memoryTypeIndex = vku_mem_type(d, req.memoryTypeBits, want),
    };
    VkDeviceMemory m;

    CHECK_VK(vkAllocateMemory(d->dev, &mai, NULL, &m));
    return m;
}

VkBuffer vku_buffer(const VkuDev *d, VkDeviceSize size,
                    VkBufferUsageFlags usage, const void *next,
                    VkDeviceMemory *mem, void **map)
{
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = usage,
    };
    VkMemoryRequirements req;
    VkBuffer b;

    CHECK_VK(vkCreateBuffer(d->dev, &bci, NULL, &b));
    vkGetBufferMemoryRequirements(d->dev, b, &req);
    *mem = vku_alloc(d, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                             VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, next);
    CHECK_VK(vkBindBufferMemory(d->dev, b, *mem, 0));
    CHECK_VK(vkMapMemory(d->dev, *mem, 0, VK_WHOLE_SIZE, 0, map));
    return b;
}

VkImage vku_image_from(const VkuDev *d, const VkImageCreateInfo *ici,
                       VkImageAspectFlags aspect, VkMemoryPropertyFlags want,
                       VkDeviceMemory *mem, VkImageView *view)
{
    VkImageViewCreateInfo vci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .viewType = ici->arrayLayers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY
                                         : VK_IMAGE_VIEW_TYPE_2D,
        .format = ici->format,
        .subresourceRange = { aspect, 0, ici->mipLevels, 0,
                              ici->arrayLayers },
    };
    VkMemoryRequirements req;
    VkImage img;

    CHECK_VK(vkCreateImage(d->dev, ici, NULL, &img));
    vkGetImageMemoryRequirements(d->dev, img, &req);
    *mem = vku_alloc(d, req, want, NULL);
    CHECK_VK(vkBindImageMemory(d->dev, img, *mem, 0));
    if (view) {
        vci.image = img;
        CHECK_VK(vkCreateImageView(d->dev, &vci, NULL, view));
    }
    return img;
}

VkImage vku_image(const VkuDev *d, VkFormat fmt, uint32_t w, uint32_t h,
                  VkImageUsageFlags usage, VkImageAspectFlags aspect,
                  VkMemoryPropertyFlags want, VkDeviceMemory *mem,
                  VkImageView *view)
{
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = fmt,
        .extent = { w, h, 1 },
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };

    return vku_image_from(d, &ici, aspect, want, mem, view);
}

VkShaderModule vku_module(const VkuDev *d, const uint32_t *code,
                          size_t size)
{
    VkShaderModuleCreateInfo smci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = size,
        .pCode = code,
    };
    VkShaderModule m;

    CHECK_VK(vkCreateShaderModule(d->dev, &smci, NULL, &m));
    return m;
}

VkPipeline vku_compute_pipeline(const VkuDev *d, VkPipelineLayout layout,
                                const uint32_t *code, size_t size)
{
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = vku_module(d, code, size),
            .pName = "main",
        },
        .layout = layout,
    };
    VkPipeline pipe;

    CHECK_VK(vkCreateComputePipelines(d->dev, VK_NULL_HANDLE, 1, &cpci,
                                      NULL, &pipe));
    vkDestroyShaderModule(d->dev, cpci.stage.module, NULL);
    return pipe;
}

void vku_layers_barrier(VkCommandBuffer cmd, VkImage img,
                        VkImageAspectFlags aspect, uint32_t layers,
                        VkImageLayout from, VkImageLayout to,
                        VkAccessFlags src_access, VkAccessFlags dst_access,
                        VkPipelineStageFlags src, VkPipelineStageFlags dst)
{
    VkImageMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = src_access,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = img,
        .subresourceRange = { aspect, 0, 1, 0, layers },
    };

    vkCmdPipelineBarrier(cmd, src, dst, 0, 0, NULL, 0, NULL, 1, &b);
}

void vku_image_barrier(VkCommandBuffer cmd, VkImage img,
                       VkImageAspectFlags aspect, VkImageLayout from,
                       VkImageLayout to, VkAccessFlags src_access,
                       VkAccessFlags dst_access, VkPipelineStageFlags src,
                       VkPipelineStageFlags dst)
{
    vku_layers_barrier(cmd, img, aspect, 1, from, to, src_access,
                       dst_access, src, dst);
}

VkCommandBuffer vku_begin(const VkuDev *d, VkCommandPool pool,
                          VkCommandBufferUsageFlags flags)
{
    VkCommandBufferAllocateInfo cbai = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VkCommandBufferBeginInfo cbbi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = flags,
    };
    VkCommandBuffer cmd;

    CHECK_VK(vkAllocateCommandBuffers(d->dev, &cbai, &cmd));
    CHECK_VK(vkBeginCommandBuffer(cmd, &cbbi));
    return cmd;
}

VkResult vku_submit_wait(const VkuDev *d, VkCommandPool pool,
                         VkCommandBuffer cmd, uint64_t timeout_ns)
{
    VkFenceCreateInfo fci = {
        .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
    };
    VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &cmd,
    };
    VkFence fence;
    VkResult r;

    CHECK_VK(vkEndCommandBuffer(cmd));
    CHECK_VK(vkCreateFence(d->dev, &fci, NULL, &fence));
    r = vkQueueSubmit(d->queue, 1, &si, fence);
    if (r == VK_SUCCESS) {
        r = vkWaitForFences(d->dev, 1, &fence, VK_TRUE, timeout_ns);
    }
    if (r == VK_SUCCESS && pool != VK_NULL_HANDLE) {
        vkFreeCommandBuffers(d->dev, pool, 1, &cmd);
    }
    vkDestroyFence(d->dev, fence, NULL);
    return r;
}
