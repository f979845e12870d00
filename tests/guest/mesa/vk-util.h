/*
 * Vulkan set-up shared by the Mesa guest's Vulkan programs: the instance,
 * a physical device by driver (Honeykrisp, or lavapipe as the software
 * reference), a logical device with one queue, memory types, buffers and
 * images with their memory, shader modules, one-shot command buffers
 * submitted and waited for with a fence.  A Vulkan call that fails
 * outside a check ends the program (CHECK_VK).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AGX_GUEST_VK_UTIL_H
#define AGX_GUEST_VK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

/* The program's name in messages, and its exit status when CHECK_VK fails */
extern const char *vku_prog;
extern int vku_exit_status;

/* A Vulkan call outside a check failed: the run cannot go on */
#define CHECK_VK(expr) vku_check((expr), #expr, __FILE__, __LINE__)
void vku_check(VkResult r, const char *expr, const char *file, int line);

typedef struct VkuDev {
    VkPhysicalDevice pdev;
    VkDevice dev;
    VkQueue queue;
    uint32_t family;
    uint32_t ts_bits;               /* the queue's timestampValidBits */
    VkPhysicalDeviceMemoryProperties mem;
} VkuDev;

VkInstance vku_instance(const char *app, uint32_t api_version);

/*
 * The @nth physical device of @inst whose driver is @want (any driver if
 * @want is 0), or VK_NULL_HANDLE
 */
VkPhysicalDevice vku_find_device(VkInstance inst, VkDriverId want, int nth);

/*
 * @pdev's driver, and "DEVICE (DRIVER INFO)" in @name (at most @len
 * bytes)
 */
VkDriverId vku_device_name(VkPhysicalDevice pdev, char *name, size_t len);

/* "honeykrisp", "lavapipe" or "other" */
const char *vku_driver_name(VkDriverId id);

/*
 * Opens @pdev with one queue of the first family that has @flags,
 * @features (a pNext chain, may be NULL) and @n_ext extensions enabled.
 * False when no queue family has @flags.
 */
bool vku_open(VkuDev *d, VkPhysicalDevice pdev, VkQueueFlags flags,
              const void *features, uint32_t n_ext,
              const char *const *exts);

/* The first memory type of @bits with @want; ends the program if none */
uint32_t vku_mem_type(const VkuDev *d, uint32_t bits,
                      VkMemoryPropertyFlags want);

/* Memory for @req with @want (@next: VkMemoryAllocateInfo's chain) */
VkDeviceMemory vku_alloc(const VkuDev *d, VkMemoryRequirements req,
                         VkMemoryPropertyFlags want, const void *next);

/*
 * A buffer of @size bytes for @usage in its own host-visible, coherent
 * memory (*@mem; @next its allocation's chain), mapped at *@map
 */
VkBuffer vku_buffer(const VkuDev *d, VkDeviceSize size,
                    VkBufferUsageFlags usage, const void *next,
                    VkDeviceMemory *mem, void **map);

/*
 * The image @ici describes, in its own memory of @want (*@mem), with a
 * view of @aspect over all its levels and layers (*@view, unless NULL;
 * a 2D array view when it has layers)
 */
VkImage vku_image_from(const VkuDev *d, const VkImageCreateInfo *ici,
                       VkImageAspectFlags aspect, VkMemoryPropertyFlags want,
                       VkDeviceMemory *mem, VkImageView *view);

/*
 * A @w x @h 2D image of @fmt, one level and layer, optimal tiling, in its
 * own memory of @want (*@mem), with a view of @aspect (*@view)
 */
VkImage vku_image(const VkuDev *d, VkFormat fmt, uint32_t w, uint32_t h,
                  VkImageUsageFlags usage, VkImageAspectFlags aspect,
                  VkMemoryPropertyFlags want, VkDeviceMemory *mem,
                  VkImageView *view);

VkShaderModule vku_module(const VkuDev *d, const uint32_t *code,
                          size_t size);

/* A compute pipeline of @layout running the "main" of SPIR-V @code */
VkPipeline vku_compute_pipeline(const VkuDev *d, VkPipelineLayout layout,
                                const uint32_t *code, size_t size);

/* A layout transition of @img's first level and @layers layers, @aspect */
void vku_layers_barrier(VkCommandBuffer cmd, VkImage img,
                        VkImageAspectFlags aspect, uint32_t layers,
                        VkImageLayout from, VkImageLayout to,
                        VkAccessFlags src_access, VkAccessFlags dst_access,
                        VkPipelineStageFlags src, VkPipelineStageFlags dst);

/* The same for its first layer */
void vku_image_barrier(VkCommandBuffer cmd, VkImage img,
                       VkImageAspectFlags aspect, VkImageLayout from,
                       VkImageLayout to, VkAccessFlags src_access,
                       VkAccessFlags dst_access, VkPipelineStageFlags src,
                       VkPipelineStageFlags dst);

/* A primary command buffer of @pool, begun with @flags */
VkCommandBuffer vku_begin(const VkuDev *d, VkCommandPool pool,
                          VkCommandBufferUsageFlags flags);

/*
 * Ends @cmd, submits it with a fence and waits for it up to @timeout_ns:
 * VK_TIMEOUT if it hangs.  On success @cmd goes back to @pool (unless
 * @pool is VK_NULL_HANDLE); else the GPU may still use it and it leaks.
 */
VkResult vku_submit_wait(const VkuDev *d, VkCommandPool pool,
                         VkCommandBuffer cmd, uint64_t timeout_ns);

#endif
