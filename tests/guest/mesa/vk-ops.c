/*
 * vk-ops: Vulkan transfer, synchronisation, query and compute operations,
 * each checked against a CPU reference.  Written from the Vulkan
 * specification.  Each check is one TAP line:
 *
 *   ok N name
 *   not ok N name - what differed (first bad index, got, want)
 *   ok N name # SKIP why          (the device lacks the feature)
 *
 * then a plan line "1..N" and a summary.  The shaders are the GLSL files
 * vk-ops-*.comp, compiled to SPIR-V when the program is built.
 *
 *   vk-ops [--device honeykrisp|lavapipe|any] [--only NAME[,NAME...]]
 *          [--list]
 *                  the checks on the first device of that driver
 *                  (default honeykrisp); exit 0 if all passed (or were
 *                  skipped), 1 if one failed, 2 if the program could not
 *                  run them (no device, a Vulkan call failed outside a
 *                  check)
 *   vk-ops --corpus FILE [--only ...]
 *                  the same, and appends to FILE (with usc-dump.so's
 *                  record of the submissions) each check's verdict
 *                  ("result NAME ok|fail|skip") and the GPU memory it
 *                  expected ("expect NAME VA LEN", then "data OFFSET HEX"
 *                  rows of 32 bytes): the CPU reference, at the buffer's
 *                  device address (bufferDeviceAddress is enabled for it)
 *   vk-ops --bench [--groups N] [--loops N]
 *                  times one compute dispatch (vk-ops-flow.comp, N
 *                  workgroups of 64 invocations, default 256) on every
 *                  Honeykrisp and lavapipe device the loader lists, and
 *                  checks its result; prints "vk-ops: bench DRIVER ..."
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "vk-ops-astc-hdr.h"
#include "vk-ops-spv.h"
#include "vk-util.h"

#define TIMEOUT_NS 20000000000ull   /* a fence wait: 20 s */
#define SENTINEL 0xdeadbeefu
#define MAX_SETS 64

/* A shader of vk-ops-spv.h */
typedef struct Spv {
    const uint32_t *code;
    size_t size;
} Spv;

#define SPV(name) ((Spv) { vk_ops_##name##_spv, sizeof(vk_ops_##name##_spv) })

typedef struct Ctx {
    VkuDev vd;
    /* vd's, for short */
    VkInstance inst;
    VkPhysicalDevice pdev;
    VkDevice dev;
    VkQueue queue;
    uint32_t family;
    VkDriverId driver;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + VK_MAX_DRIVER_NAME_SIZE +
              VK_MAX_DRIVER_INFO_SIZE + 8];
    VkPhysicalDeviceMemoryProperties mem;
    VkPhysicalDeviceProperties props;
    uint32_t ts_bits;               /* the queue's timestampValidBits */
    /* features enabled on the device */
    bool int16, int64, fp16, fp64, aniso;
    VkSubgroupFeatureFlags subgroup_ops;
    uint32_t subgroup_size;
    VkCommandPool cpool;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkDescriptorPool dpool;
} Ctx;

typedef struct Buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    void *map;
    VkDeviceSize size;
} Buf;

typedef struct Img {
    VkImage img;
    VkDeviceMemory mem;
    VkImageView view;
    uint32_t w, h;
} Img;

/* --only */
static const char *only;

/* --corpus: the file, and the device addresses of the mapped buffers */
static FILE *corpus;
static struct {
    const uint8_t *map;
    VkDeviceSize size;
    VkDeviceAddress va;
} known[64];

/* --only: is this check wanted (named, or its group: "cs" or "cs/")? */
static bool wanted(const char *name)
{
    return tap_wanted(only, name);
}

static void corpus_result(const char *name, const char *verdict)
{
    if (corpus) {
        fprintf(corpus, "result %s %s\n", name, verdict);
        fflush(corpus);
    }
}

/* The CPU reference of what the GPU should have left at @got */
static void corpus_expect(const char *name, const void *got,
                          const void *want, size_t len)
{
    const uint8_t *g = got, *w = want;
    size_t i, k;

    for (k = 0; corpus && k < sizeof(known) / sizeof(known[0]); k++) {
        if (known[k].map && g >= known[k].map &&
            g + len <= known[k].map + known[k].size) {
            fprintf(corpus, "expect %s 0x%llx %zu\n", name,
                    (unsigned long long)(known[k].va + (g - known[k].map)),
                    len);
            for (i = 0; i < len; i++) {
                if (i % 32 == 0) {
                    fprintf(corpus, "data %zx ", i);
                }
                fprintf(corpus, "%02x%s", w[i],
                        i % 32 == 31 || i == len - 1 ? "\n" : "");
            }
            fflush(corpus);
            return;
        }
    }
}

/* got[0..n) must equal want[0..n) */
static bool check_u32(const char *name, const uint32_t *got,
                      const uint32_t *want, size_t n)
{
    size_t i, bad = 0, first = 0;

    corpus_expect(name, got, want, n * sizeof(*want));
    for (i = 0; i < n; i++) {
        if (got[i] != want[i] && !bad++) {
            first = i;
        }
    }
    if (!bad) {
        tap_ok(name);
        return true;
    }
    tap_fail(name, "%zu of %zu words differ, first at index %zu: "
             "got 0x%08x, want 0x%08x", bad, n, first, got[first],
             want[first]);
    return false;
}

static bool check_u64(const char *name, const uint64_t *got,
                      const uint64_t *want, size_t n)
{
    size_t i, bad = 0, first = 0;

    corpus_expect(name, got, want, n * sizeof(*want));
    for (i = 0; i < n; i++) {
        if (got[i] != want[i] && !bad++) {
            first = i;
        }
    }
    if (!bad) {
        tap_ok(name);
        return true;
    }
    tap_fail(name, "%zu of %zu values differ, first at index %zu: "
             "got 0x%016llx, want 0x%016llx", bad, n, first,
             (unsigned long long)got[first],
             (unsigned long long)want[first]);
    return false;
}

/* A fence wait that ran out: the check fails, the run goes on */
static bool check_run(const char *name, VkResult r)
{
    if (r == VK_SUCCESS) {
        return true;
    }
    tap_fail(name, "the submission did not complete: %s %d",
             r == VK_TIMEOUT ? "fence timeout" : "VkResult", r);
    return false;
}

/* ---- device ---- */

static void open_device(Ctx *c, VkInstance inst, VkPhysicalDevice pdev)
{
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
    };
    VkPhysicalDeviceSubgroupProperties sg = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
        .pNext = &drv,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &sg,
    };
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &f12,
    };
    VkPhysicalDeviceVulkan12Features e12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
    };
    VkPhysicalDeviceFeatures2 e2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &e12,
    };
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
    };
    VkDescriptorSetLayoutBinding b[7];
    VkDescriptorSetLayoutCreateInfo dlci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 7,
        .pBindings = b,
    };
    VkPushConstantRange pcr = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .size = 16,
    };
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pcr,
    };
    VkDescriptorPoolSize ps[3] = {
        { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 * MAX_SETS },
        { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, MAX_SETS },
        { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2 * MAX_SETS },
    };
    VkDescriptorPoolCreateInfo dpci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
        .maxSets = MAX_SETS,
        .poolSizeCount = 3,
        .pPoolSizes = ps,
    };
    int i;

    c->inst = inst;
    vkGetPhysicalDeviceProperties2(pdev, &p2);
    c->props = p2.properties;
    c->driver = vku_device_name(pdev, c->name, sizeof(c->name));
    vkGetPhysicalDeviceFeatures2(pdev, &f2);
    /* What the checks use, when the device has it */
    e2.features.shaderInt16 = c->int16 = f2.features.shaderInt16;
    e2.features.shaderInt64 = c->int64 = f2.features.shaderInt64;
    e2.features.shaderFloat64 = c->fp64 = f2.features.shaderFloat64;
    e2.features.textureCompressionBC = f2.features.textureCompressionBC;
    e2.features.textureCompressionETC2 = f2.features.textureCompressionETC2;
    e2.features.textureCompressionASTC_LDR =
        f2.features.textureCompressionASTC_LDR;
    e2.features.samplerAnisotropy = c->aniso =
        f2.features.samplerAnisotropy;
    e12.shaderFloat16 = c->fp16 = f12.shaderFloat16;
    e12.bufferDeviceAddress = corpus && f12.bufferDeviceAddress;
    if (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) {
        c->subgroup_ops = sg.supportedOperations;
    }
    c->subgroup_size = sg.subgroupSize;
    if (!vku_open(&c->vd, pdev, VK_QUEUE_COMPUTE_BIT, &e2, 0, NULL)) {
        printf("vk-ops: %s has no compute queue\n", c->name);
        exit(2);
    }
    c->pdev = pdev;
    c->dev = c->vd.dev;
    c->queue = c->vd.queue;
    c->family = c->vd.family;
    c->mem = c->vd.mem;
    c->ts_bits = c->vd.ts_bits;
    cpci.queueFamilyIndex = c->family;
    CHECK_VK(vkCreateCommandPool(c->dev, &cpci, NULL, &c->cpool));
    /*
     * One layout for every shader: buffers 0-3, a storage image at 4,
     * sampled images with their samplers at 5 and 6
     */
    for (i = 0; i < 7; i++) {
        b[i] = (VkDescriptorSetLayoutBinding) {
            .binding = i,
            .descriptorType = i < 4 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                              : i == 4 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                              : VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    }
    CHECK_VK(vkCreateDescriptorSetLayout(c->dev, &dlci, NULL, &c->dsl));
    plci.pSetLayouts = &c->dsl;
    CHECK_VK(vkCreatePipelineLayout(c->dev, &plci, NULL, &c->layout));
    CHECK_VK(vkCreateDescriptorPool(c->dev, &dpci, NULL, &c->dpool));
}

static void close_device(Ctx *c)
{
    vkDeviceWaitIdle(c->dev);
    vkDestroyDescriptorPool(c->dev, c->dpool, NULL);
    vkDestroyPipelineLayout(c->dev, c->layout, NULL);
    vkDestroyDescriptorSetLayout(c->dev, c->dsl, NULL);
    vkDestroyCommandPool(c->dev, c->cpool, NULL);
    vkDestroyDevice(c->dev, NULL);
}

/* A host-visible, coherent buffer, mapped, every word SENTINEL */
static Buf make_buf(Ctx *c, VkDeviceSize size)
{
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkMemoryAllocateFlagsInfo mafi = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkBufferDeviceAddressInfo bdai = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
    };
    Buf b = { .size = size };
    VkDeviceSize i;
    size_t k;

    if (corpus) {
        usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    }
    b.buf = vku_buffer(&c->vd, size, usage, corpus ? &mafi : NULL, &b.mem,
                       &b.map);
    for (i = 0; i < size / 4; i++) {
        ((uint32_t *)b.map)[i] = SENTINEL;
    }
    for (k = 0; corpus && k < sizeof(known) / sizeof(known[0]); k++) {
        if (!known[k].map) {
            bdai.buffer = b.buf;
            known[k].map = b.map;
            known[k].size = size;
            known[k].va = vkGetBufferDeviceAddress(c->dev, &bdai);
            break;
        }
    }
    return b;
}

static void free_buf(Ctx *c, Buf *b)
{
    size_t k;

    for (k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
        if (known[k].map == b->map) {
            known[k].map = NULL;
        }
    }
    vkDestroyBuffer(c->dev, b->buf, NULL);
    vkFreeMemory(c->dev, b->mem, NULL);
}

/* A w x h 2D image of @fmt, optimal tiling, in device memory */
static Img make_img_usage(Ctx *c, VkFormat fmt, uint32_t w, uint32_t h,
                          VkImageUsageFlags usage);

static Img make_img(Ctx *c, VkFormat fmt, uint32_t w, uint32_t h)
{
    return make_img_usage(c, fmt, w, h, VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                        VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                        VK_IMAGE_USAGE_STORAGE_BIT);
}

static Img make_img_usage(Ctx *c, VkFormat fmt, uint32_t w, uint32_t h,
                          VkImageUsageFlags usage)
{
    Img im = { .w = w, .h = h };

    im.img = vku_image(&c->vd, fmt, w, h, usage, VK_IMAGE_ASPECT_COLOR_BIT,
                       0, &im.mem, &im.view);
    return im;
}

static void free_img(Ctx *c, Img *im)
{
    vkDestroyImageView(c->dev, im->view, NULL);
    vkDestroyImage(c->dev, im->img, NULL);
    vkFreeMemory(c->dev, im->mem, NULL);
}

/* ---- recording and submitting ---- */

static VkCommandBuffer begin(Ctx *c)
{
    return vku_begin(&c->vd, c->cpool,
                     VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
}

/* Ends, submits with a fence and waits for it; VK_TIMEOUT if it hangs */
static VkResult submit(Ctx *c, VkCommandBuffer cmd)
{
    return vku_submit_wait(&c->vd, c->cpool, cmd, TIMEOUT_NS);
}

/* Everything before (any stage, any write) visible to everything after */
static void full_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT |
                         VK_ACCESS_MEMORY_WRITE_BIT,
    };

    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0,
                         NULL, 0, NULL);
}

/* Writes before, made visible to the host after the fence */
static void host_barrier(VkCommandBuffer cmd)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
    };

    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
                         NULL);
}

static void img_layout(VkCommandBuffer cmd, Img *im, VkImageLayout from,
                       VkImageLayout to)
{
    vku_image_barrier(cmd, im->img, VK_IMAGE_ASPECT_COLOR_BIT, from, to,
                      VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
}

/* A buffer <-> image copy region: rows of @row_len texels from @offset */
static VkBufferImageCopy bic(VkDeviceSize offset, uint32_t row_len,
                             int32_t x, int32_t y, uint32_t w, uint32_t h)
{
    return (VkBufferImageCopy) {
        .bufferOffset = offset,
        .bufferRowLength = row_len,
        .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
        .imageOffset = { x, y, 0 },
        .imageExtent = { w, h, 1 },
    };
}

/* ---- compute pipelines ---- */

static VkPipeline make_pipeline(Ctx *c, Spv spv)
{
    return vku_compute_pipeline(&c->vd, c->layout, spv.code, spv.size);
}

/* A descriptor set: buffers at bindings 0.. (NULL: none), image at 4 */
static VkDescriptorSet make_set(Ctx *c, Buf **bufs, int nbufs, Img *im)
{
    VkDescriptorSetAllocateInfo dsai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = c->dpool,
        .descriptorSetCount = 1,
        .pSetLayouts = &c->dsl,
    };
    VkDescriptorBufferInfo dbi[4];
    VkDescriptorImageInfo dii = {
        .imageLayout = VK_IMAGE_LAYOUT_GENERAL,
    };
    VkWriteDescriptorSet w[5];
    VkDescriptorSet set;
    int i, n = 0;

    CHECK_VK(vkAllocateDescriptorSets(c->dev, &dsai, &set));
    for (i = 0; i < nbufs; i++) {
        dbi[i] = (VkDescriptorBufferInfo) { bufs[i]->buf, 0, VK_WHOLE_SIZE };
        w[n++] = (VkWriteDescriptorSet) {
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = i,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &dbi[i],
        };
    }
    if (im) {
        dii.imageView = im->view;
        w[n++] = (VkWriteDescriptorSet) {
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = 4,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
            .pImageInfo = &dii,
        };
    }
    vkUpdateDescriptorSets(c->dev, n, w, 0, NULL);
    return set;
}

static void dispatch(VkCommandBuffer cmd, Ctx *c, VkPipeline pipe,
                     VkDescriptorSet set, const uint32_t *push,
                     uint32_t x, uint32_t y, uint32_t z)
{
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout,
                            0, 1, &set, 0, NULL);
    if (push) {
        vkCmdPushConstants(cmd, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           16, push);
    }
    vkCmdDispatch(cmd, x, y, z);
}

/*
 * One dispatch of a shader over @nbufs buffers (and an image), then a
 * barrier to the host; false (and a "not ok" line) if it did not
 * complete.
 */
static bool run_shader(Ctx *c, const char *name, Spv spv,
                       Buf **bufs, int nbufs, Img *im,
                       const uint32_t *push, uint32_t x, uint32_t y,
                       uint32_t z)
{
    VkPipeline pipe = make_pipeline(c, spv);
    VkDescriptorSet set = make_set(c, bufs, nbufs, im);
    VkCommandBuffer cmd = begin(c);
    VkResult r;

    dispatch(cmd, c, pipe, set, push, x, y, z);
    host_barrier(cmd);
    r = submit(c, cmd);
    if (r == VK_SUCCESS) {
        vkFreeDescriptorSets(c->dev, c->dpool, 1, &set);
        vkDestroyPipeline(c->dev, pipe, NULL);
    }
    return check_run(name, r);
}

/* ---- transfer operations ---- */

#define FILL_WORDS 1024

static void test_fill(Ctx *c)
{
    static const struct {
        const char *name;
        VkDeviceSize offset, size;
        uint32_t value;
    } cases[] = {
        { "fill-buffer/whole", 0, VK_WHOLE_SIZE, 0x01020304 },
        { "fill-buffer/range", 4 * 37, 4 * 501, 0xcafef00d },
        { "fill-buffer/offset-whole-size", 4 * 1000, VK_WHOLE_SIZE, 0 },
    };
    uint32_t want[FILL_WORDS];
    size_t i, k;

    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        Buf b;
        VkCommandBuffer cmd;
        size_t first = cases[k].offset / 4, n;

        if (!wanted(cases[k].name)) {
            continue;
        }
        b = make_buf(c, FILL_WORDS * 4);
        n = cases[k].size == VK_WHOLE_SIZE ? FILL_WORDS - first
                                           : cases[k].size / 4;
        for (i = 0; i < FILL_WORDS; i++) {
            want[i] = i >= first && i < first + n ? cases[k].value
                                                  : SENTINEL;
        }
        cmd = begin(c);
        vkCmdFillBuffer(cmd, b.buf, cases[k].offset, cases[k].size,
                        cases[k].value);
        host_barrier(cmd);
        if (check_run(cases[k].name, submit(c, cmd))) {
            check_u32(cases[k].name, b.map, want, FILL_WORDS);
        }
        free_buf(c, &b);
    }
}

static void test_update(Ctx *c)
{
    const char *name = "update-buffer";
    uint32_t data[1024], want[FILL_WORDS];
    VkCommandBuffer cmd;
    Buf b;
    size_t i;

    if (!wanted(name)) {
        return;
    }
    b = make_buf(c, FILL_WORDS * 4);
    for (i = 0; i < 1024; i++) {
        data[i] = hash32(i) | 1;
    }
    for (i = 0; i < FILL_WORDS; i++) {
        want[i] = SENTINEL;
    }
    /* 16 words at word 3, then 600 words at word 400 */
    memcpy(&want[3], data, 16 * 4);
    memcpy(&want[400], &data[100], 600 * 4);
    cmd = begin(c);
    vkCmdUpdateBuffer(cmd, b.buf, 3 * 4, 16 * 4, data);
    vkCmdUpdateBuffer(cmd, b.buf, 400 * 4, 600 * 4, &data[100]);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        check_u32(name, b.map, want, FILL_WORDS);
    }
    free_buf(c, &b);
}

static void test_copy(Ctx *c)
{
    const char *name = "copy-buffer";
    static const VkBufferCopy regions[] = {
        { 0, 0, 64 },
        { 4 * 100, 4 * 500, 4 * 300 },          /* forwards */
        { 4 * 900, 4 * 20, 4 * 100 },           /* backwards */
        { 4 * 1023, 4 * 1023, 4 },              /* the last word */
        { 2, 4 * 130 + 1, 13 },                 /* unaligned bytes */
    };
    uint8_t want[FILL_WORDS * 4];
    VkCommandBuffer cmd;
    Buf src, dst;
    size_t i, k;

    if (!wanted(name)) {
        return;
    }
    src = make_buf(c, FILL_WORDS * 4);
    dst = make_buf(c, FILL_WORDS * 4);
    for (i = 0; i < FILL_WORDS; i++) {
        ((uint32_t *)src.map)[i] = hash32(i + 77);
    }
    memcpy(want, dst.map, sizeof(want));
    for (k = 0; k < sizeof(regions) / sizeof(regions[0]); k++) {
        memcpy(want + regions[k].dstOffset,
               (uint8_t *)src.map + regions[k].srcOffset, regions[k].size);
    }
    cmd = begin(c);
    vkCmdCopyBuffer(cmd, src.buf, dst.buf,
                    sizeof(regions) / sizeof(regions[0]), regions);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        check_u32(name, dst.map, (uint32_t *)want, FILL_WORDS);
    }
    free_buf(c, &src);
    free_buf(c, &dst);
}

#define IMG_W 67
#define IMG_H 33

/* Clear a r32ui image, then copy it to a buffer */
static void test_clear_image(Ctx *c)
{
    const char *name = "clear-color-image";
    VkClearColorValue color = { .uint32 = { 0x12345678, 0, 0, 0 } };
    VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
    VkBufferImageCopy region = bic(0, 0, 0, 0, IMG_W, IMG_H);
    uint32_t want[IMG_W * IMG_H];
    VkCommandBuffer cmd;
    Img im;
    Buf b;
    size_t i;

    if (!wanted(name)) {
        return;
    }
    im = make_img(c, VK_FORMAT_R32_UINT, IMG_W, IMG_H);
    b = make_buf(c, sizeof(want));
    for (i = 0; i < IMG_W * IMG_H; i++) {
        want[i] = color.uint32[0];
    }
    cmd = begin(c);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdClearColorImage(cmd, im.img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         &color, 1, &range);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vkCmdCopyImageToBuffer(cmd, im.img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           b.buf, 1, &region);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        check_u32(name, b.map, want, IMG_W * IMG_H);
    }
    free_buf(c, &b);
    free_img(c, &im);
}

/*
 * A render pass that only clears: a 40x24 RGBA8 colour attachment (not a
 * whole number of tiles) with loadOp CLEAR and storeOp STORE, then copied
 * into a buffer: every pixel the clear colour (0.2, 0.4, 0.6, 1.0 are
 * 51, 102, 153, 255 exactly).  With storage usage the image is not
 * compressed and Honeykrisp renders the pass; without ("/compressed") it
 * is, and Honeykrisp clears it with a compute kernel writing solid-colour
 * compression tiles instead.
 */
static void test_render_pass_clear(Ctx *c, const char *name,
                                   VkImageUsageFlags usage)
{
    enum { W = 40, H = 24 };
    VkAttachmentDescription att = {
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
    };
    VkAttachmentReference ref = {
        0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
    };
    VkSubpassDescription sub = {
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ref,
    };
    VkRenderPassCreateInfo rpci = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &att,
        .subpassCount = 1,
        .pSubpasses = &sub,
    };
    VkClearValue clear = { .color = { .float32 = { 0.2f, 0.4f, 0.6f, 1 } } };
    VkBufferImageCopy region = bic(0, 0, 0, 0, W, H);
    uint32_t want[W * H];
    VkFramebufferCreateInfo fbci = {
        .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
        .attachmentCount = 1,
        .width = W,
        .height = H,
        .layers = 1,
    };
    VkRenderPassBeginInfo rpbi = {
        .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
        .renderArea = { { 0, 0 }, { W, H } },
        .clearValueCount = 1,
        .pClearValues = &clear,
    };
    VkRenderPass rp;
    VkFramebuffer fb;
    VkCommandBuffer cmd;
    Img im;
    Buf b;

    if (!wanted(name)) {
        return;
    }
    im = make_img_usage(c, VK_FORMAT_R8G8B8A8_UNORM, W, H,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                        VK_IMAGE_USAGE_TRANSFER_SRC_BIT | usage);
    b = make_buf(c, sizeof(want));
    for (size_t i = 0; i < W * H; i++) {
        want[i] = 0xff996633;
    }
    CHECK_VK(vkCreateRenderPass(c->dev, &rpci, NULL, &rp));
    fbci.renderPass = rp;
    fbci.pAttachments = &im.view;
    CHECK_VK(vkCreateFramebuffer(c->dev, &fbci, NULL, &fb));
    rpbi.renderPass = rp;
    rpbi.framebuffer = fb;
    cmd = begin(c);
    vkCmdBeginRenderPass(cmd, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdEndRenderPass(cmd);
    full_barrier(cmd);
    vkCmdCopyImageToBuffer(cmd, im.img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           b.buf, 1, &region);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        check_u32(name, b.map, want, W * H);
    }
    vkDestroyFramebuffer(c->dev, fb, NULL);
    vkDestroyRenderPass(c->dev, rp, NULL);
    free_buf(c, &b);
    free_img(c, &im);
}

/*
 * A buffer into a r32ui image (rows of a longer buffer row length), the
 * image back into another buffer (tightly packed)
 */
static void test_buffer_image(Ctx *c)
{
    const char *name = "copy-buffer-to-image";
    const uint32_t row = IMG_W + 5;
    VkBufferImageCopy in = bic(4 * 8, row, 0, 0, IMG_W, IMG_H);
    VkBufferImageCopy out = bic(0, 0, 0, 0, IMG_W, IMG_H);
    uint32_t want[IMG_W * IMG_H];
    VkCommandBuffer cmd;
    uint32_t *s;
    Img im;
    Buf src, dst;
    size_t x, y;

    if (!wanted(name)) {
        return;
    }
    im = make_img(c, VK_FORMAT_R32_UINT, IMG_W, IMG_H);
    src = make_buf(c, 4 * (8 + row * IMG_H));
    dst = make_buf(c, sizeof(want));
    s = (uint32_t *)src.map + 8;
    for (y = 0; y < IMG_H; y++) {
        for (x = 0; x < row; x++) {
            s[y * row + x] = hash32(y * 1000 + x);
            if (x < IMG_W) {
                want[y * IMG_W + x] = s[y * row + x];
            }
        }
    }
    cmd = begin(c);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyBufferToImage(cmd, src.buf, im.img,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &in);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vkCmdCopyImageToBuffer(cmd, im.img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           dst.buf, 1, &out);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        check_u32(name, dst.map, want, IMG_W * IMG_H);
    }
    free_buf(c, &src);
    free_buf(c, &dst);
    free_img(c, &im);
}

/* Image A (from a buffer) -> a region of image B (cleared) -> buffer */
static void test_image_image(Ctx *c)
{
    const char *name = "copy-image-to-image";
    VkBufferImageCopy whole = bic(0, 0, 0, 0, IMG_W, IMG_H);
    VkClearColorValue zero = { .uint32 = { 0 } };
    VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
    VkImageCopy ic = {
        .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
        .srcOffset = { 3, 5, 0 },
        .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
        .dstOffset = { 20, 1, 0 },
        .extent = { 40, 27, 1 },
    };
    uint32_t want[IMG_W * IMG_H];
    VkCommandBuffer cmd;
    Img a, b;
    Buf src, dst;
    size_t x, y;

    if (!wanted(name)) {
        return;
    }
    a = make_img(c, VK_FORMAT_R32_UINT, IMG_W, IMG_H);
    b = make_img(c, VK_FORMAT_R32_UINT, IMG_W, IMG_H);
    src = make_buf(c, sizeof(want));
    dst = make_buf(c, sizeof(want));
    for (y = 0; y < IMG_H; y++) {
        for (x = 0; x < IMG_W; x++) {
            ((uint32_t *)src.map)[y * IMG_W + x] = hash32(y * IMG_W + x + 5);
        }
    }
    for (y = 0; y < IMG_H; y++) {
        for (x = 0; x < IMG_W; x++) {
            bool in = x >= 20 && x < 60 && y >= 1 && y < 28;

            want[y * IMG_W + x] = in ? ((uint32_t *)src.map)
                                       [(y - 1 + 5) * IMG_W + x - 20 + 3] : 0;
        }
    }
    cmd = begin(c);
    img_layout(cmd, &a, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    img_layout(cmd, &b, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyBufferToImage(cmd, src.buf, a.img,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &whole);
    vkCmdClearColorImage(cmd, b.img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         &zero, 1, &range);
    img_layout(cmd, &a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    full_barrier(cmd);
    vkCmdCopyImage(cmd, a.img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b.img,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &ic);
    img_layout(cmd, &b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    vkCmdCopyImageToBuffer(cmd, b.img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           dst.buf, 1, &whole);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        check_u32(name, dst.map, want, IMG_W * IMG_H);
    }
    free_buf(c, &src);
    free_buf(c, &dst);
    free_img(c, &a);
    free_img(c, &b);
}

/* ---- events and queries ---- */

static void test_events(Ctx *c)
{
    VkEventCreateInfo eci = {
        .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO,
    };
    VkCommandBuffer cmd;
    VkEvent ev;
    VkResult r;

    CHECK_VK(vkCreateEvent(c->dev, &eci, NULL, &ev));
    if (wanted("event/set")) {
        /* Starts unsignalled; the device sets it */
        CHECK_VK(vkResetEvent(c->dev, ev));
        cmd = begin(c);
        vkCmdSetEvent(cmd, ev, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
        if (check_run("event/set", submit(c, cmd))) {
            r = vkGetEventStatus(c->dev, ev);
            if (r == VK_EVENT_SET) {
                tap_ok("event/set");
            } else {
                tap_fail("event/set", "vkGetEventStatus after the fence: "
                         "got %d, want VK_EVENT_SET (%d)", r, VK_EVENT_SET);
            }
        }
    }
    if (wanted("event/reset")) {
        /* Set by the host; the device resets it */
        CHECK_VK(vkSetEvent(c->dev, ev));
        cmd = begin(c);
        vkCmdResetEvent(cmd, ev, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
        if (check_run("event/reset", submit(c, cmd))) {
            r = vkGetEventStatus(c->dev, ev);
            if (r == VK_EVENT_RESET) {
                tap_ok("event/reset");
            } else {
                tap_fail("event/reset", "vkGetEventStatus after the fence: "
                         "got %d, want VK_EVENT_RESET (%d)", r,
                         VK_EVENT_RESET);
            }
        }
    }
    vkDestroyEvent(c->dev, ev, NULL);
}

#define N_QUERIES 8

/*
 * Timestamp queries: written on the device (top and bottom of a
 * dispatch-free command buffer: a fill in between), read with
 * vkGetQueryPoolResults; then a device-side reset of some of them must
 * leave those unavailable, and vkCmdCopyQueryPoolResults copies the
 * others with their availability.
 */
static void test_queries(Ctx *c)
{
    VkQueryPoolCreateInfo qpci = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = N_QUERIES,
    };
    uint64_t res[N_QUERIES][2], want[N_QUERIES * 2];
    VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT |
                               VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
    VkCommandBuffer cmd;
    VkQueryPool qp;
    VkResult r;
    Buf fill, out;
    int i, bad;
    bool written = false;

    if (!wanted("timestamp-query") && !wanted("query-reset") &&
        !wanted("copy-query-results")) {
        return;
    }
    if (!c->ts_bits || !c->props.limits.timestampComputeAndGraphics) {
        tap_skip("timestamp-query", "no timestamps on the compute queue");
        tap_skip("query-reset", "no timestamps on the compute queue");
        tap_skip("copy-query-results", "no timestamps on the compute queue");
        return;
    }
    CHECK_VK(vkCreateQueryPool(c->dev, &qpci, NULL, &qp));
    fill = make_buf(c, 4096);
    out = make_buf(c, N_QUERIES * 16);

    /* Every query written: 0 at the top, then pairs around fills */
    cmd = begin(c);
    vkCmdResetQueryPool(cmd, qp, 0, N_QUERIES);
    for (i = 0; i < N_QUERIES; i++) {
        vkCmdWriteTimestamp(cmd, i & 1 ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT
                                       : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                            qp, i);
        vkCmdFillBuffer(cmd, fill.buf, 0, VK_WHOLE_SIZE, i);
        full_barrier(cmd);
    }
    r = submit(c, cmd);
    if (r == VK_SUCCESS) {
        /*
         * After the fence every query is available: no WAIT_BIT (a driver
         * may call the device lost when a wait times out)
         */
        memset(res, 0, sizeof(res));
        r = vkGetQueryPoolResults(c->dev, qp, 0, N_QUERIES, sizeof(res), res,
                                  16, flags);
        r = r == VK_NOT_READY ? VK_SUCCESS : r;
    }
    if (wanted("timestamp-query") && check_run("timestamp-query", r)) {
        /* Available, non-zero, and in submission order */
        for (i = 0, bad = -1; i < N_QUERIES && bad < 0; i++) {
            if (!res[i][1] || !res[i][0] ||
                (i && res[i][0] < res[i - 1][0])) {
                bad = i;
            }
        }
        if (bad < 0) {
            tap_ok("timestamp-query");
            written = true;
            printf("vk-ops: timestamps: %llu ticks from the first to the "
                   "last (period %.1f ns)\n",
                   (unsigned long long)(res[N_QUERIES - 1][0] - res[0][0]),
                   c->props.limits.timestampPeriod);
        } else {
            tap_fail("timestamp-query", "query %d: value %llu (previous "
                     "%llu), availability %llu", bad,
                     (unsigned long long)res[bad][0],
                     (unsigned long long)(bad ? res[bad - 1][0] : 0),
                     (unsigned long long)res[bad][1]);
        }
    } else if (r == VK_SUCCESS) {
        written = res[0][1] && res[N_QUERIES - 1][1];
    }

    /* Queries 2..5 reset on the device: unavailable; the rest copied */
    if (wanted("query-reset") || wanted("copy-query-results")) {
        uint64_t before[N_QUERIES][2];

        memcpy(before, res, sizeof(res));
        cmd = begin(c);
        vkCmdResetQueryPool(cmd, qp, 2, 4);
        full_barrier(cmd);
        vkCmdCopyQueryPoolResults(cmd, qp, 0, N_QUERIES, out.buf, 0, 16,
                                  flags);
        host_barrier(cmd);
        r = submit(c, cmd);
        if (r == VK_SUCCESS) {
            memset(res, 0xff, sizeof(res));
            r = vkGetQueryPoolResults(c->dev, qp, 0, N_QUERIES, sizeof(res),
                                      res, 16, flags);
            r = r == VK_NOT_READY ? VK_SUCCESS : r;
        }
        for (i = 0; i < N_QUERIES; i++) {
            bool reset = i >= 2 && i < 6;

            want[2 * i] = reset ? 0 : before[i][0];
            want[2 * i + 1] = !reset;
        }
        if (wanted("query-reset") && check_run("query-reset", r)) {
            for (i = 2, bad = -1; i < 6 && bad < 0; i++) {
                if (res[i][1]) {
                    bad = i;
                }
            }
            if (!written) {
                tap_fail("query-reset", "the queries were never written");
            } else if (bad >= 0) {
                tap_fail("query-reset", "query %d reset on the device: "
                         "availability got %llu, want 0", bad,
                         (unsigned long long)res[bad][1]);
            } else {
                tap_ok("query-reset");
            }
        }
        if (wanted("copy-query-results") &&
            check_run("copy-query-results", r)) {
            uint64_t *got = out.map;

            /* A reset query's value is undefined: only its availability */
            for (i = 2; i < 6; i++) {
                want[2 * i] = got[2 * i];
            }
            if (!written) {
                tap_fail("copy-query-results",
                         "the queries were never written");
            } else {
                check_u64("copy-query-results", got, want, 2 * N_QUERIES);
            }
        }
    }
    free_buf(c, &fill);
    free_buf(c, &out);
    vkDestroyQueryPool(c->dev, qp, NULL);
}

/* ---- compute shaders ---- */

static void test_cs_global_id(Ctx *c)
{
    const char *name = "cs/global-id";
    const uint32_t gx = 3, gy = 2, gz = 2, nx = gx * 4, ny = gy * 4,
                   nz = gz * 2;
    uint32_t want[2 * 12 * 8 * 4];
    uint32_t x, y, z;
    Buf o, *bufs[] = { &o };

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    for (z = 0; z < nz; z++) {
        for (y = 0; y < ny; y++) {
            for (x = 0; x < nx; x++) {
                uint32_t i = (z * ny + y) * nx + x;
                uint32_t local = (z % 2) * 16 + (y % 4) * 4 + x % 4;

                want[2 * i] = x | y << 10 | z << 20;
                want[2 * i + 1] = x / 4 | (y / 4) << 8 | (z / 2) << 16 |
                                  local << 24;
            }
        }
    }
    if (run_shader(c, name, SPV(gid), bufs, 1, NULL, NULL, gx, gy, gz)) {
        check_u32(name, o.map, want, 2 * nx * ny * nz);
    }
    free_buf(c, &o);
}

static void test_cs_push(Ctx *c)
{
    const char *name = "cs/push-constants";
    const uint32_t push[4] = { 2654435761u, 12345, 0x0f0f0f0f, 1000 };
    uint32_t want[1024], i;
    Buf o, *bufs[] = { &o };

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    for (i = 0; i < 1024; i++) {
        want[i] = i < push[3] ? (i * push[0] + push[1]) ^ push[2] : SENTINEL;
    }
    if (run_shader(c, name, SPV(push), bufs, 1, NULL, push, 16, 1, 1)) {
        check_u32(name, o.map, want, 1024);
    }
    free_buf(c, &o);
}

#define RED_GROUPS 16

static void test_cs_reduce(Ctx *c)
{
    const char *name = "cs/shared-reduction";
    uint32_t want[RED_GROUPS] = { 0 }, i;
    Buf o, in, *bufs[] = { &o, &in };

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, RED_GROUPS * 256 * 4);
    for (i = 0; i < RED_GROUPS * 256; i++) {
        ((uint32_t *)in.map)[i] = hash32(i) >> 8;
        want[i / 256] += hash32(i) >> 8;
    }
    if (run_shader(c, name, SPV(reduce), bufs, 2, NULL, NULL, RED_GROUPS, 1,
                   1)) {
        check_u32(name, o.map, want, RED_GROUPS);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

#define ATOM_N (64 * 32)

static void test_cs_atomics(Ctx *c)
{
    const char *name = "cs/atomics-global";
    uint32_t want[32], seen[ATOM_N] = { 0 }, i, *r, *s;
    Buf res, slots, *bufs[] = { &res, &slots };

    if (!wanted(name)) {
        return;
    }
    res = make_buf(c, sizeof(want));
    slots = make_buf(c, ATOM_N * 4);
    r = res.map;
    s = slots.map;
    memset(want, 0, sizeof(want));
    memset(r, 0, sizeof(want));
    r[3] = want[3] = 0xffffffff;
    want[0] = want[1] = ATOM_N;
    for (i = 0; i < ATOM_N; i++) {
        uint32_t h = hash32(i);

        want[2] = h > want[2] ? h : want[2];
        want[3] = h < want[3] ? h : want[3];
        want[4] |= 1u << (i % 32);
        want[5] ^= h;
        want[16 + i % 16] += i;
    }
    for (i = 6; i < 16; i++) {
        want[i] = 0;
    }
    if (!run_shader(c, name, SPV(atomic), bufs, 2, NULL, NULL, ATOM_N / 64,
                    1, 1)) {
        goto out;
    }
    /* The counter handed out every slot once: a permutation of 1..N */
    for (i = 0; i < ATOM_N; i++) {
        if (s[i] < 1 || s[i] > ATOM_N || seen[s[i] - 1]++) {
            corpus_expect(name, r, want, sizeof(want));
            tap_fail(name, "slot %u: got 0x%08x, a value out of 1..%u or "
                     "seen twice", i, s[i], ATOM_N);
            goto out;
        }
    }
    check_u32(name, r, want, 32);
out:
    free_buf(c, &res);
    free_buf(c, &slots);
}

#define SH_GROUPS 8

static void test_cs_atomics_shared(Ctx *c)
{
    const char *name = "cs/atomics-shared";
    uint32_t want[SH_GROUPS * 17] = { 0 }, i, x;
    Buf o, in, *bufs[] = { &o, &in };

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, SH_GROUPS * 128 * 4);
    for (i = 0; i < SH_GROUPS * 128; i++) {
        x = hash32(i * 3) % 1000;
        ((uint32_t *)in.map)[i] = x;
        want[(i / 128) * 17 + x % 16]++;
        want[(i / 128) * 17 + 16] += x;
    }
    if (run_shader(c, name, SPV(atomic_shared), bufs, 2, NULL, NULL,
                   SH_GROUPS, 1, 1)) {
        check_u32(name, o.map, want, SH_GROUPS * 17);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

#define SG_N 256

/*
 * Subgroup operations.  The shader writes, per invocation, the result,
 * its lane, its subgroup and the subgroup size; the reference groups the
 * invocations of each workgroup by subgroup from those.
 */
static void test_cs_subgroup(Ctx *c, const char *name, const char *op,
                             VkSubgroupFeatureFlags need, Spv spv)
{
    uint32_t in[SG_N], want[SG_N * 4], i, j, *o;
    uint32_t bad = 0, sz = c->subgroup_size;
    static int lane_of[SG_N / 64][64][128];
    Buf out, inb, *bufs[] = { &out, &inb };

    if (!wanted(name)) {
        return;
    }
    if ((c->subgroup_ops & need) != need) {
        tap_skip(name, "subgroup operations not supported in compute");
        return;
    }
    out = make_buf(c, sizeof(want));
    inb = make_buf(c, sizeof(in));
    for (i = 0; i < SG_N; i++) {
        in[i] = ((uint32_t *)inb.map)[i] = hash32(i + 999) >> 4;
    }
    if (!run_shader(c, name, spv, bufs, 2, NULL, NULL, SG_N / 64, 1,
                    1)) {
        goto out;
    }
    o = out.map;
    /*
     * Lanes, subgroups and size as the device reported them; if they make
     * no sense, the check fails, and the expectation (for --corpus)
     * assumes subgroups of subgroupSize consecutive invocations
     */
    memset(lane_of, -1, sizeof(lane_of));
    for (i = 0; i < SG_N; i++) {
        uint32_t lane = o[4 * i + 1], sg = o[4 * i + 2], size = o[4 * i + 3];

        if (size != sz || lane >= sz || sz > 128 ||
            sg >= 64 / sz + (64 % sz != 0) ||
            lane_of[i / 64][sg][lane] >= 0) {
            bad = i + 1;
            break;
        }
        lane_of[i / 64][sg][lane] = i;
    }
    if (bad) {
        memset(lane_of, -1, sizeof(lane_of));
        for (i = 0; i < SG_N; i++) {
            lane_of[i / 64][(i % 64) / sz][i % sz] = i;
        }
    }
    for (i = 0; i < SG_N; i++) {
        uint32_t lane = bad ? i % sz : o[4 * i + 1];
        uint32_t sg = bad ? (i % 64) / sz : o[4 * i + 2];
        int (*lanes)[128] = &lane_of[i / 64][sg];
        uint32_t v = 0;

        if (!strcmp(op, "add")) {
            for (j = 0; j < sz; j++) {
                v += (*lanes)[j] >= 0 ? in[(*lanes)[j]] : 0;
            }
        } else if (!strcmp(op, "ballot")) {
            for (j = 0; j < sz && j < 32; j++) {
                if ((*lanes)[j] >= 0 && (in[(*lanes)[j]] & 1)) {
                    v |= 1u << j;
                }
            }
        } else {
            j = (lane * 7 + 3) % sz;
            v = (*lanes)[j] >= 0 ? in[(*lanes)[j]] : o[4 * i];
        }
        want[4 * i] = v;
        want[4 * i + 1] = lane;
        want[4 * i + 2] = sg;
        want[4 * i + 3] = sz;
    }
    if (bad) {
        corpus_expect(name, o, want, sizeof(want));
        tap_fail(name, "invocation %u: lane %u, subgroup %u, size %u "
                 "(device subgroupSize %u)", bad - 1, o[4 * bad - 3],
                 o[4 * bad - 2], o[4 * bad - 1], sz);
    } else {
        check_u32(name, o, want, SG_N * 4);
    }
out:
    free_buf(c, &out);
    free_buf(c, &inb);
}

#define ARITH_N 256

static void test_cs_int16(Ctx *c)
{
    const char *name = "cs/int16";
    uint32_t want[ARITH_N * 4], i;
    Buf o, in, *bufs[] = { &o, &in };

    if (!wanted(name)) {
        return;
    }
    if (!c->int16) {
        tap_skip(name, "no shaderInt16");
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, ARITH_N * 4);
    for (i = 0; i < ARITH_N; i++) {
        uint32_t x = hash32(i + 16) ^ (i == 5 ? 0x80000000 : 0);
        uint16_t a = x, b = x >> 16, bb = b | 1;
        int16_t sa = a, sb = b;

        ((uint32_t *)in.map)[i] = x;
        want[4 * i] = (uint16_t)(a * b + 0x1234);
        want[4 * i + 1] = (uint16_t)((a >> 3) ^ (uint16_t)(b << 5));
        want[4 * i + 2] = (uint16_t)(sa < sb ? sa - sb : sb - sa);
        want[4 * i + 3] = (uint16_t)(a / bb) | (uint32_t)(a % bb) << 16;
    }
    if (run_shader(c, name, SPV(int16), bufs, 2, NULL, NULL, ARITH_N / 64,
                   1, 1)) {
        check_u32(name, o.map, want, ARITH_N * 4);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

static void test_cs_int64(Ctx *c)
{
    const char *name = "cs/int64";
    uint64_t want[ARITH_N * 4], *v;
    uint32_t i;
    Buf o, in, *bufs[] = { &o, &in };

    if (!wanted(name)) {
        return;
    }
    if (!c->int64) {
        tap_skip(name, "no shaderInt64");
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, ARITH_N * 16);
    v = in.map;
    for (i = 0; i < ARITH_N; i++) {
        uint64_t a = (uint64_t)hash32(i) << 32 | hash32(i + 1000);
        uint64_t b = (uint64_t)hash32(i + 2000) << 32 | hash32(i + 3000);
        int64_t sa, sb;

        if (i % 7 == 0) {
            b >>= 29;               /* small divisors too */
        }
        sa = (int64_t)a;
        sb = (int64_t)b;
        v[2 * i] = a;
        v[2 * i + 1] = b;
        want[4 * i] = a * b + 0x0123456789abcdefull;
        want[4 * i + 1] = (a >> 37) ^ (b << 13) ^ (uint64_t)(sa >> 45);
        want[4 * i + 2] = (uint64_t)(sa < sb ? sa : sb);
        want[4 * i + 3] = a / ((b >> 32) | 1) + a % ((b & 0xffff) | 1);
    }
    if (run_shader(c, name, SPV(int64), bufs, 2, NULL, NULL, ARITH_N / 64,
                   1, 1)) {
        check_u64(name, o.map, want, ARITH_N * 4);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

/* The fp16 and fp64 shaders: exact arithmetic on multiples of 1/4 */
static void test_cs_float(Ctx *c, const char *name, bool have,
                          const char *feature, Spv spv)
{
    uint32_t want[ARITH_N * 4], i;
    Buf o, in, *bufs[] = { &o, &in };

    if (!wanted(name)) {
        return;
    }
    if (!have) {
        tap_skip(name, feature);
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, ARITH_N * 4);
    for (i = 0; i < ARITH_N; i++) {
        uint32_t x = hash32(i + 4242);
        float a = ((int)(x & 63) - 32) * 0.25f;
        float b = ((int)((x >> 6) & 63) - 32) * 0.25f;
        float cc = ((int)((x >> 12) & 63) - 32) * 0.25f;
        float r[3];

        r[0] = a * b + cc;
        r[1] = (a < b ? a : b) - (b > cc ? b : cc);
        r[2] = a - cc < 0 ? cc - a : a - cc;
        ((uint32_t *)in.map)[i] = x;
        memcpy(&want[4 * i], r, sizeof(r));
        want[4 * i + 3] = a < b ? 1 : a == b ? 2 : 3;
    }
    if (run_shader(c, name, spv, bufs, 2, NULL, NULL, ARITH_N / 64, 1,
                   1)) {
        check_u32(name, o.map, want, ARITH_N * 4);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

/* The reference of vk-ops-flow.comp */
static void flow_ref(uint32_t x, uint32_t *steps_out, uint32_t *acc_out)
{
    uint32_t n = x, steps = 0, acc, a, b;

    while (n != 1 && steps < 500) {
        n = n & 1 ? 3 * n + 1 : n >> 1;
        steps++;
    }
    switch (x % 5) {
    case 0:
        acc = x * 3;
        break;
    case 1:
        acc = x ^ 0x5555;
        break;
    case 3:
        acc = ~x;
        break;
    default:
        acc = x + 7;
        break;
    }
    for (a = 0; a < (x & 15); a++) {
        if ((a & 3) == 1) {
            continue;
        }
        for (b = a; b < 16; b++) {
            if (((a * b) & 7) == 6) {
                break;
            }
            acc = acc * 33 + b;
        }
    }
    *steps_out = steps;
    *acc_out = acc;
}

static uint32_t flow_input(uint32_t i)
{
    return i < 3 ? i : (hash32(i) & 0xfffff) + 1;
}

static void test_cs_flow(Ctx *c)
{
    const char *name = "cs/control-flow";
    uint32_t want[ARITH_N * 2], i;
    Buf o, in, *bufs[] = { &o, &in };

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, ARITH_N * 4);
    for (i = 0; i < ARITH_N; i++) {
        ((uint32_t *)in.map)[i] = flow_input(i);
        flow_ref(flow_input(i), &want[2 * i], &want[2 * i + 1]);
    }
    if (run_shader(c, name, SPV(flow), bufs, 2, NULL, NULL, ARITH_N / 64, 1,
                   1)) {
        check_u32(name, o.map, want, ARITH_N * 2);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

#define SI_W 32
#define SI_H 24

/* imageStore in one dispatch, imageLoad in the next; and the image copied */
static void test_cs_image(Ctx *c)
{
    const char *name = "cs/image-store-load";
    uint32_t want[SI_W * SI_H], x, y;
    VkBufferImageCopy whole = bic(0, 0, 0, 0, SI_W, SI_H);
    VkPipeline ps, pl;
    VkDescriptorSet set;
    VkCommandBuffer cmd;
    VkResult r;
    Buf o, copy, *bufs[] = { &o };
    Img im;

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    copy = make_buf(c, sizeof(want));
    im = make_img(c, VK_FORMAT_R32_UINT, SI_W, SI_H);
    ps = make_pipeline(c, SPV(image_store));
    pl = make_pipeline(c, SPV(image_load));
    set = make_set(c, bufs, 1, &im);
    cmd = begin(c);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
    dispatch(cmd, c, ps, set, NULL, SI_W / 8, SI_H / 8, 1);
    full_barrier(cmd);
    dispatch(cmd, c, pl, set, NULL, SI_W / 8, SI_H / 8, 1);
    full_barrier(cmd);
    vkCmdCopyImageToBuffer(cmd, im.img, VK_IMAGE_LAYOUT_GENERAL, copy.buf, 1,
                           &whole);
    host_barrier(cmd);
    r = submit(c, cmd);
    if (check_run(name, r)) {
        for (y = 0; y < SI_H; y++) {
            for (x = 0; x < SI_W; x++) {
                want[y * SI_W + x] = (x * 1000 + y + 0xa0000000u) * 3 + 1;
            }
        }
        check_u32(name, o.map, want, SI_W * SI_H);
        for (y = 0; y < SI_H; y++) {
            for (x = 0; x < SI_W; x++) {
                want[y * SI_W + x] = x * 1000 + y + 0xa0000000u;
            }
        }
        check_u32("cs/image-store-copy", copy.map, want, SI_W * SI_H);
        vkDestroyPipeline(c->dev, ps, NULL);
        vkDestroyPipeline(c->dev, pl, NULL);
    }
    free_buf(c, &o);
    free_buf(c, &copy);
    free_img(c, &im);
}

/*
 * cs/sample: a compute shader samples a 16x16 RGBA8 texture of 5 mip
 * levels (each level filled by a compute shader's image stores) through
 * a nearest and a linear sampler (vk-ops-sample.comp), checked against
 * the Vulkan specification's filtering computed here.  Tolerance 2^-8:
 * the precision Vulkan lets an implementation have with 8 bits of
 * subtexel and mipmap precision (what hk advertises).  The nearest
 * lookups avoid texel and level boundaries; the linear ones sit on texel
 * edges at LODs that are multiples of 1/4, so every weight is a multiple
 * of 1/16 and the exact result, rounded once, is the expected float.
 */
#define SAMP_N 64
#define SAMP_SIZE 16
#define SAMP_LEVELS 5

static uint32_t samp_texel(int level, int x, int y, int c)
{
    return (x * 37 + y * 11 + level * 53 + c * 71) & 255;
}

/* VkSamplerAddressMode on integer texel coordinate @x; -1: the border */
static int samp_wrap(int x, int n, VkSamplerAddressMode mode)
{
    int t;

    switch (mode) {
    case VK_SAMPLER_ADDRESS_MODE_REPEAT:
        return ((x % n) + n) % n;
    case VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT:
        t = ((x % (2 * n)) + 2 * n) % (2 * n);
        return t < n ? t : 2 * n - 1 - t;
    case VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER:
        return x < 0 || x >= n ? -1 : x;
    default:
        return x < 0 ? 0 : x >= n ? n - 1 : x;
    }
}

/* Channel @c of level @level at (u, v): nearest, or bilinear (white border) */
static double samp_level(int level, double u, double v, bool linear,
                         const VkSamplerAddressMode wrap[2], int c)
{
    int n = SAMP_SIZE >> level, k;
    double x = u * n, y = v * n, acc = 0;

    if (!linear) {
        int i = samp_wrap((int)floor(x), n, wrap[0]);
        int j = samp_wrap((int)floor(y), n, wrap[1]);

        return (float)(samp_texel(level, i, j, c) / 255.0);
    }
    for (k = 0; k < 4; k++) {
        int i0 = (int)floor(x - 0.5), j0 = (int)floor(y - 0.5);
        double a = x - 0.5 - i0, b = y - 0.5 - j0;
        int i = samp_wrap(i0 + (k & 1), n, wrap[0]);
        int j = samp_wrap(j0 + (k >> 1), n, wrap[1]);
        double w = (k & 1 ? a : 1 - a) * (k >> 1 ? b : 1 - b);

        acc += w * (i < 0 || j < 0 ? 1.0 :
                    (float)(samp_texel(level, i, j, c) / 255.0));
    }
    return acc;
}

static VkSampler samp_make(Ctx *c, bool linear)
{
    VkSamplerCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST,
        .minFilter = linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST,
        .mipmapMode = linear ? VK_SAMPLER_MIPMAP_MODE_LINEAR
                             : VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = linear ? VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER
                               : VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeV = linear ? VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
                               : VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .maxLod = VK_LOD_CLAMP_NONE,
        .borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE,
    };
    VkSampler s;

    CHECK_VK(vkCreateSampler(c->dev, &sci, NULL, &s));
    return s;
}

static VkImageView samp_view(Ctx *c, VkImage img, uint32_t level,
                             uint32_t count)
{
    VkImageViewCreateInfo vci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = img,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, level, count, 0, 1 },
    };
    VkImageView v;

    CHECK_VK(vkCreateImageView(c->dev, &vci, NULL, &v));
    return v;
}

/* The lookups: per invocation (u, v, LOD) nearest, then linear */
static void samp_inputs(float *in)
{
    static const float nlod[8] = { -1, 0, 0.3f, 0.7f, 1.2f, 1.8f, 3.4f, 6 };
    static const float llod[8] = { 0, 0.25f, 0.5f, 1, 1.25f, 1.5f, 1.75f, 2 };
    int id;

    for (id = 0; id < SAMP_N; id++) {
        float *n = in + 8 * id, *l = n + 4;

        n[0] = ((id * 7) % 56 - 20 + 0.25f) / SAMP_SIZE;
        n[1] = ((id * 5) % 48 - 16 + 0.75f) / SAMP_SIZE;
        n[2] = nlod[id % 8];
        n[3] = 0;
        l[0] = (4 * ((id * 3) % 9) - 8) / (float)SAMP_SIZE;
        l[1] = (4 * ((id * 5) % 9) - 8) / (float)SAMP_SIZE;
        l[2] = llod[(id / 8) % 8];
        l[3] = 0;
    }
}

static void samp_expect(const float *in, float *want)
{
    static const VkSamplerAddressMode nw[2] = {
        VK_SAMPLER_ADDRESS_MODE_REPEAT,
        VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
    };
    static const VkSamplerAddressMode lw[2] = {
        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    const int q = SAMP_LEVELS - 1;
    int id, ch, d;

    for (id = 0; id < SAMP_N; id++) {
        const float *n = in + 8 * id, *l = n + 4;
        double lod = n[2], dl, w;

        /* nearest mipmaps: level ceil(lod + 1/2) - 1, clamped */
        d = lod <= 0.5 ? 0 : (int)ceil(lod + 0.5) - 1;
        d = d > q ? q : d;
        for (ch = 0; ch < 4; ch++) {
            want[8 * id + ch] = samp_level(d, n[0], n[1], false, nw, ch);
        }
        /* linear mipmaps: levels floor(lod) and the next, blended */
        dl = l[2] < 0 ? 0 : l[2] > q ? q : l[2];
        d = (int)floor(dl);
        w = dl - d;
        for (ch = 0; ch < 4; ch++) {
            double v = (1 - w) * samp_level(d, l[0], l[1], true, lw, ch);

            if (w > 0) {
                v += w * samp_level(d + 1, l[0], l[1], true, lw, ch);
            }
            want[8 * id + 4 + ch] = (float)v;
        }
    }
}

static void test_cs_sample(Ctx *c)
{
    const char *name = "cs/sample";
    static float want[SAMP_N * 8];
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .extent = { SAMP_SIZE, SAMP_SIZE, 1 },
        .mipLevels = SAMP_LEVELS,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VkImageMemoryBarrier ib = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .newLayout = VK_IMAGE_LAYOUT_GENERAL,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, SAMP_LEVELS, 0,
                              1 },
    };
    VkDescriptorImageInfo dii[2];
    VkWriteDescriptorSet w[2];
    VkImageView level_view[SAMP_LEVELS], all;
    VkDescriptorSet fill_set[SAMP_LEVELS], set;
    VkPipeline pf, ps;
    VkSampler smp[2];
    VkDeviceMemory mem;
    VkCommandBuffer cmd;
    VkImage img;
    VkResult r;
    Buf o, in, *bufs[] = { &o, &in };
    Img lv;
    size_t i, bad = 0, first = 0;
    int k;

    if (!wanted(name)) {
        return;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, sizeof(want));
    samp_inputs(in.map);
    img = vku_image_from(&c->vd, &ici, VK_IMAGE_ASPECT_COLOR_BIT, 0, &mem,
                         NULL);
    pf = make_pipeline(c, SPV(sample_fill));
    ps = make_pipeline(c, SPV(sample));
    smp[0] = samp_make(c, false);
    smp[1] = samp_make(c, true);
    all = samp_view(c, img, 0, SAMP_LEVELS);
    cmd = begin(c);
    ib.image = img;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, NULL, 0,
                         NULL, 1, &ib);
    for (k = 0; k < SAMP_LEVELS; k++) {
        uint32_t push[4] = { k, SAMP_SIZE >> k, 0, 0 };
        uint32_t groups = ((SAMP_SIZE >> k) + 7) / 8;

        level_view[k] = samp_view(c, img, k, 1);
        lv = (Img) { .img = img, .view = level_view[k] };
        fill_set[k] = make_set(c, NULL, 0, &lv);
        dispatch(cmd, c, pf, fill_set[k], push, groups, groups, 1);
    }
    full_barrier(cmd);
    set = make_set(c, bufs, 2, NULL);
    for (k = 0; k < 2; k++) {
        dii[k] = (VkDescriptorImageInfo) {
            .sampler = smp[k],
            .imageView = all,
            .imageLayout = VK_IMAGE_LAYOUT_GENERAL,
        };
        w[k] = (VkWriteDescriptorSet) {
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = 5 + k,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
            .pImageInfo = &dii[k],
        };
    }
    vkUpdateDescriptorSets(c->dev, 2, w, 0, NULL);
    dispatch(cmd, c, ps, set, NULL, 1, 1, 1);
    host_barrier(cmd);
    r = submit(c, cmd);
    if (check_run(name, r)) {
        const float *got = o.map;

        samp_expect(in.map, want);
        corpus_expect(name, got, want, sizeof(want));
        for (i = 0; i < SAMP_N * 8; i++) {
            if (!(fabsf(got[i] - want[i]) <= 1.0f / 256) && !bad++) {
                first = i;
            }
        }
        if (!bad) {
            tap_ok(name);
        } else {
            tap_fail(name, "%zu of %d values off by more than 2^-8, first "
                     "at invocation %zu (%s, channel %zu): got %g, want %g",
                     bad, SAMP_N * 8, first / 8,
                     first % 8 < 4 ? "nearest" : "linear", first % 4,
                     got[first], want[first]);
        }
        vkDestroyPipeline(c->dev, pf, NULL);
        vkDestroyPipeline(c->dev, ps, NULL);
        for (k = 0; k < SAMP_LEVELS; k++) {
            vkDestroyImageView(c->dev, level_view[k], NULL);
        }
        vkDestroyImageView(c->dev, all, NULL);
        vkDestroySampler(c->dev, smp[0], NULL);
        vkDestroySampler(c->dev, smp[1], NULL);
        vkDestroyImage(c->dev, img, NULL);
        vkFreeMemory(c->dev, mem, NULL);
    }
    free_buf(c, &o);
    free_buf(c, &in);
}

/*
 * cs/sample-bc1, -bc1-srgb, -bc2, -bc3, -bc4, -bc4-snorm, -bc5,
 * -bc5-snorm, -bc6h, -bc7, -etc2, -eac:
 * a 16x16 texture of a block-compressed format (16 blocks of 4x4 texels
 * built here from hash values, uploaded with vkCmdCopyBufferToImage) is
 * read by vk-ops-sample-block.comp with texelFetch, nearest sampling at
 * texel centres and bilinear sampling where four texels meet.  The
 * reference decodes each block here from the Khronos Data Format
 * Specification, as whole blocks of 16 texels.  The blocks keep to what
 * every decoder must agree on: BC1 in 4-colour mode, BC3/BC4/BC5 in
 * both of their modes, BC6H (unsigned) in mode 3, BC7 in modes 5 and 6,
 * ETC2 in the individual and differential modes.
 * Tolerances: 2/255 (2/127 signed) where the specification leaves the
 * rounding of interpolated values to the implementation (BCn: lavapipe
 * decodes to 8 bits with its own rounding, up to 1.6/255 from the exact
 * value), 2^-12 for the exactly defined 8- and 11-bit BC7/ETC2/EAC
 * values, 2^-10 of the value for BC6H's half floats,
 * 5/255 after an sRGB decode; bilinear results add 2^-8 (8 bits of
 * subtexel precision).  Skipped where the device cannot sample the
 * format with a linear filter.
 */
#define BLK_TEXELS 16

typedef struct BlockFmt {
    const char *name;
    VkFormat fmt;
    unsigned bytes;
    float tol;
    void (*make)(uint8_t *blk, uint32_t seed);
    /* the texels of a block, row by row, RGBA */
    void (*decode)(const uint8_t *blk, double t[][4]);
    unsigned bw;                /* square blocks of bw texels (0: 4) */
} BlockFmt;

static void blk_le(uint8_t *p, int n, uint64_t v)
{
    int i;

    for (i = 0; i < n; i++) {
        p[i] = v >> (8 * i);
    }
}

static uint64_t blk_get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    int i;

    for (i = n - 1; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

/* Two different RGB565 colours, the larger first (BC1's 4-colour mode) */
static void blk_make_colour(uint8_t *p, uint32_t seed)
{
    uint32_t a = hash32(seed) & 0xffff, b = hash32(seed + 1) & 0xffff;

    if (a == b) {
        b ^= 1;
    }
    blk_le(p, 2, a > b ? a : b);
    blk_le(p + 2, 2, a > b ? b : a);
    blk_le(p + 4, 4, hash32(seed + 2));
}

static void blk_decode_colour(const uint8_t *p, double t[16][4])
{
    double e[4][3];
    uint32_t idx = blk_get_le(p + 4, 4);
    int k, c;

    for (k = 0; k < 2; k++) {
        uint32_t v = blk_get_le(p + 2 * k, 2);

        e[k][0] = (v >> 11) / 31.0;
        e[k][1] = ((v >> 5) & 63) / 63.0;
        e[k][2] = (v & 31) / 31.0;
    }
    for (c = 0; c < 3; c++) {
        e[2][c] = (2 * e[0][c] + e[1][c]) / 3;
        e[3][c] = (e[0][c] + 2 * e[1][c]) / 3;
    }
    for (k = 0; k < 16; k++) {
        for (c = 0; c < 3; c++) {
            t[k][c] = e[(idx >> (2 * k)) & 3][c];
        }
        t[k][3] = 1;
    }
}

/* An 8-bit channel block (BC3 alpha, BC4, BC5); odd seeds 6-value mode */
static void blk_make_channel(uint8_t *p, uint32_t seed, bool sgn)
{
    int a = hash32(seed) & 255, b = hash32(seed + 1) & 255;

    if (sgn) {
        a = (int8_t)a < -127 ? 0x81 : a;
        b = (int8_t)b < -127 ? 0x81 : b;
    }
    if (a == b) {
        b ^= 2;
    }
    if ((sgn ? (int8_t)a > (int8_t)b : a > b) == (seed & 1)) {
        int s = a;

        a = b;
        b = s;
    }
    p[0] = a;
    p[1] = b;
    blk_le(p + 2, 6, (uint64_t)hash32(seed + 2) << 16 ^ hash32(seed + 3));
}

static void blk_decode_channel(const uint8_t *p, bool sgn, double v[16])
{
    double e[8], lo = sgn ? -1 : 0;
    double a = sgn ? (int8_t)p[0] / 127.0 : p[0] / 255.0;
    double b = sgn ? (int8_t)p[1] / 127.0 : p[1] / 255.0;
    uint64_t idx = blk_get_le(p + 2, 6);
    int k;

    e[0] = a;
    e[1] = b;
    if (a > b) {
        for (k = 1; k <= 6; k++) {
            e[k + 1] = ((7 - k) * a + k * b) / 7;
        }
    } else {
        for (k = 1; k <= 4; k++) {
            e[k + 1] = ((5 - k) * a + k * b) / 5;
        }
        e[6] = lo;
        e[7] = 1;
    }
    for (k = 0; k < 16; k++) {
        v[k] = e[(idx >> (3 * k)) & 7];
    }
}

static void bc1_make(uint8_t *p, uint32_t seed)
{
    blk_make_colour(p, seed);
}

static void bc1_decode(const uint8_t *p, double t[16][4])
{
    blk_decode_colour(p, t);
}

static double blk_srgb(double x)
{
    return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

static void bc1_srgb_decode(const uint8_t *p, double t[16][4])
{
    int k, c;

    blk_decode_colour(p, t);
    for (k = 0; k < 16; k++) {
        for (c = 0; c < 3; c++) {
            t[k][c] = blk_srgb(t[k][c]);
        }
    }
}

static void bc2_make(uint8_t *p, uint32_t seed)
{
    blk_le(p, 4, hash32(seed + 7));
    blk_le(p + 4, 4, hash32(seed + 8));
    blk_make_colour(p + 8, seed);
}

static void bc2_decode(const uint8_t *p, double t[16][4])
{
    uint64_t a = blk_get_le(p, 8);
    int k;

    blk_decode_colour(p + 8, t);
    for (k = 0; k < 16; k++) {
        t[k][3] = ((a >> (4 * k)) & 15) / 15.0;
    }
}

static void bc3_make(uint8_t *p, uint32_t seed)
{
    blk_make_channel(p, seed + 7, false);
    blk_make_colour(p + 8, seed);
}

static void bc3_decode(const uint8_t *p, double t[16][4])
{
    double a[16];
    int k;

    blk_decode_colour(p + 8, t);
    blk_decode_channel(p, false, a);
    for (k = 0; k < 16; k++) {
        t[k][3] = a[k];
    }
}

static void bc4_make(uint8_t *p, uint32_t seed)
{
    blk_make_channel(p, seed, false);
}

static void bc4_decode(const uint8_t *p, double t[16][4])
{
    double r[16];
    int k;

    blk_decode_channel(p, false, r);
    for (k = 0; k < 16; k++) {
        t[k][0] = r[k];
        t[k][1] = t[k][2] = 0;
        t[k][3] = 1;
    }
}

static void bc4s_make(uint8_t *p, uint32_t seed)
{
    blk_make_channel(p, seed, true);
}

static void bc4s_decode(const uint8_t *p, double t[16][4])
{
    double r[16];
    int k;

    blk_decode_channel(p, true, r);
    for (k = 0; k < 16; k++) {
        t[k][0] = r[k] < -1 ? -1 : r[k];
        t[k][1] = t[k][2] = 0;
        t[k][3] = 1;
    }
}

static void bc5u_make(uint8_t *p, uint32_t seed)
{
    blk_make_channel(p, seed, false);
    blk_make_channel(p + 8, seed + 5, false);
}

static void bc5u_decode(const uint8_t *p, double t[16][4])
{
    double r[16], g[16];
    int k;

    blk_decode_channel(p, false, r);
    blk_decode_channel(p + 8, false, g);
    for (k = 0; k < 16; k++) {
        t[k][0] = r[k];
        t[k][1] = g[k];
        t[k][2] = 0;
        t[k][3] = 1;
    }
}

static void bc5_make(uint8_t *p, uint32_t seed)
{
    blk_make_channel(p, seed, true);
    blk_make_channel(p + 8, seed + 5, true);
}

static void bc5_decode(const uint8_t *p, double t[16][4])
{
    double r[16], g[16];
    int k;

    blk_decode_channel(p, true, r);
    blk_decode_channel(p + 8, true, g);
    for (k = 0; k < 16; k++) {
        t[k][0] = r[k] < -1 ? -1 : r[k];
        t[k][1] = g[k] < -1 ? -1 : g[k];
        t[k][2] = 0;
        t[k][3] = 1;
    }
}

/*
 * ETC2 RGB in the individual (even seeds) or differential mode (odd:
 * the base colour and delta chosen so every sum stays in 0..31); the
 * block is a big-endian 64-bit word, pixel indices by column
 */
static void etc2_make(uint8_t *p, uint32_t seed)
{
    uint64_t w = (uint64_t)hash32(seed) << 32 | hash32(seed + 1);
    int c;

    w &= ~(3ull << 32);                     /* diff bit, flip bit */
    w |= (uint64_t)(seed & 2) << 31;        /* flip: seed bit 1 */
    if (seed & 1) {
        w |= 1ull << 33;
        for (c = 0; c < 3; c++) {
            unsigned sh = 59 - 8 * c;
            unsigned base = 4 + (hash32(seed + 2 + c) % 24);

            /* 5-bit base 4..27, any 3-bit delta (-4..3) stays in range */
            w = (w & ~(31ull << sh)) | (uint64_t)base << sh;
        }
    }
    for (c = 0; c < 8; c++) {
        p[c] = w >> (56 - 8 * c);
    }
}

static void etc2_decode(const uint8_t *p, double t[16][4])
{
    static const int mod[8][2] = {
        { 2, 8 }, { 5, 17 }, { 9, 29 }, { 13, 42 },
        { 18, 60 }, { 24, 80 }, { 33, 106 }, { 47, 183 },
    };
    uint64_t w = 0;
    int base[2][3], k, c, s;

    for (k = 0; k < 8; k++) {
        w = w << 8 | p[k];
    }
    for (c = 0; c < 3; c++) {
        if (w >> 33 & 1) {
            int v = (w >> (59 - 8 * c)) & 31;
            int d = (w >> (56 - 8 * c)) & 7;
            int v2 = v + (d >= 4 ? d - 8 : d);

            base[0][c] = v << 3 | v >> 2;
            base[1][c] = v2 << 3 | v2 >> 2;
        } else {
            base[0][c] = ((w >> (60 - 8 * c)) & 15) * 17;
            base[1][c] = ((w >> (56 - 8 * c)) & 15) * 17;
        }
    }
    for (k = 0; k < 16; k++) {
        int x = k % 4, y = k / 4, i = 4 * x + y;
        int msb = (w >> (16 + i)) & 1, lsb = (w >> i) & 1;
        int m;

        s = (w >> 32 & 1) ? y >= 2 : x >= 2;
        m = mod[(w >> (s ? 34 : 37)) & 7][lsb];
        m = msb ? -m : m;
        for (c = 0; c < 3; c++) {
            int v = base[s][c] + m;

            t[k][c] = (v < 0 ? 0 : v > 255 ? 255 : v) / 255.0;
        }
        t[k][3] = 1;
    }
}

/* EAC R11 unsigned: any block is valid */
static void eac_make(uint8_t *p, uint32_t seed)
{
    int k;

    for (k = 0; k < 8; k++) {
        p[k] = hash32(seed * 8 + k);
    }
    if (seed & 1) {
        p[1] &= 0x0f;                       /* multiplier 0 */
    }
}

static void eac_decode(const uint8_t *p, double t[16][4])
{
    static const int tab[16][8] = {
        { -3, -6, -9, -15, 2, 5, 8, 14 }, { -3, -7, -10, -13, 2, 6, 9, 12 },
        { -2, -5, -8, -13, 1, 4, 7, 12 }, { -2, -4, -6, -13, 1, 3, 5, 12 },
        { -3, -6, -8, -12, 2, 5, 7, 11 }, { -3, -7, -9, -11, 2, 6, 8, 10 },
        { -4, -7, -8, -11, 3, 6, 7, 10 }, { -3, -5, -8, -11, 2, 4, 7, 10 },
        { -2, -6, -8, -10, 1, 5, 7, 9 }, { -2, -5, -8, -10, 1, 4, 7, 9 },
        { -2, -4, -8, -10, 1, 3, 7, 9 }, { -2, -5, -7, -10, 1, 4, 6, 9 },
        { -3, -4, -7, -10, 2, 3, 6, 9 }, { -1, -2, -3, -10, 0, 1, 2, 9 },
        { -4, -6, -8, -9, 3, 5, 7, 8 }, { -3, -5, -7, -9, 2, 4, 6, 8 },
    };
    uint64_t idx = 0;
    int mul = p[1] >> 4, k;

    for (k = 2; k < 8; k++) {
        idx = idx << 8 | p[k];
    }
    for (k = 0; k < 16; k++) {
        int i = 4 * (k % 4) + k / 4;
        int m = tab[p[1] & 15][(idx >> (45 - 3 * i)) & 7];
        int v = p[0] * 8 + 4 + (mul ? m * mul * 8 : m);

        t[k][0] = (v < 0 ? 0 : v > 2047 ? 2047 : v) / 2047.0;
        t[k][1] = t[k][2] = 0;
        t[k][3] = 1;
    }
}

/* Little-endian bit fields of a 128-bit BPTC block */
static void blk_put(uint8_t *p, unsigned pos, unsigned n, uint32_t v)
{
    unsigned k;

    for (k = 0; k < n; k++, pos++) {
        p[pos / 8] = (p[pos / 8] & ~(1u << (pos % 8))) |
                     ((v >> k) & 1) << (pos % 8);
    }
}

static uint32_t blk_bits(const uint8_t *p, unsigned pos, unsigned n)
{
    uint32_t v = 0;
    unsigned k;

    for (k = 0; k < n; k++, pos++) {
        v |= (uint32_t)((p[pos / 8] >> (pos % 8)) & 1) << k;
    }
    return v;
}

/*
 * BC7 in mode 6 (7-bit RGBA endpoints with a P-bit each, 4-bit
 * indices) or mode 5 (7-bit colour, 8-bit alpha, a rotation, 2-bit
 * colour and alpha indices), by a hash of the seed; random fields
 */
static void bc7_make(uint8_t *p, uint32_t seed)
{
    int k;

    for (k = 0; k < 16; k++) {
        p[k] = hash32(seed * 16 + k);
    }
    if (hash32(seed) & 1) {
        p[0] = (p[0] & 0xc0) | 0x20;
    } else {
        p[0] = (p[0] & 0x80) | 0x40;
    }
}

static int bc7_weight(int bits, int idx)
{
    static const int w2[4] = { 0, 21, 43, 64 };
    static const int w4[16] = { 0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47,
                                51, 55, 60, 64 };

    return bits == 2 ? w2[idx] : w4[idx];
}

static void bc7_decode(const uint8_t *p, double t[16][4])
{
    int e[2][4], k, c, pos;
    bool six = (p[0] & 0x7f) == 0x40;

    for (c = 0; c < 4; c++) {
        for (k = 0; k < 2; k++) {
            if (six) {
                int v = blk_bits(p, 7 + 14 * c + 7 * k, 7) << 1 |
                        blk_bits(p, 63 + k, 1);

                e[k][c] = v;
            } else if (c < 3) {
                int v = blk_bits(p, 8 + 14 * c + 7 * k, 7);

                e[k][c] = v << 1 | v >> 6;
            } else {
                e[k][c] = blk_bits(p, 50 + 8 * k, 8);
            }
        }
    }
    for (k = 0; k < 16; k++) {
        int out[4], ib, ia, bits = six ? 4 : 2;

        /* texel 0's indices have one bit less */
        pos = six ? 65 + (k ? 4 * k - 1 : 0) : 66 + (k ? 2 * k - 1 : 0);
        ib = blk_bits(p, pos, bits - !k);
        ia = six ? ib : (int)blk_bits(p, pos + 31, bits - !k);
        for (c = 0; c < 4; c++) {
            int w = bc7_weight(bits, c < 3 ? ib : ia);

            out[c] = ((64 - w) * e[0][c] + w * e[1][c] + 32) >> 6;
        }
        if (!six && blk_bits(p, 6, 2)) {
            int r = blk_bits(p, 6, 2) - 1, s = out[3];

            out[3] = out[r];
            out[r] = s;
        }
        for (c = 0; c < 4; c++) {
            t[k][c] = out[c] / 255.0;
        }
    }
}

/* BC6H unsigned in mode 3: 10-bit endpoints, 4-bit indices; random */
static void bc6h_make(uint8_t *p, uint32_t seed)
{
    int k;

    for (k = 0; k < 16; k++) {
        p[k] = hash32(seed * 16 + k + 5);
    }
    blk_put(p, 0, 5, 3);
}

static double bc6h_half(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;

    return e ? ldexp(1 + m / 1024.0, (int)e - 15) : ldexp(m, -24);
}

static void bc6h_decode(const uint8_t *p, double t[16][4])
{
    int e[2][3], k, c;

    for (k = 0; k < 2; k++) {
        for (c = 0; c < 3; c++) {
            int x = blk_bits(p, 5 + 30 * k + 10 * c, 10);

            e[k][c] = !x ? 0 : x == 1023 ? 0xffff : ((x << 15) + 0x4000) >> 9;
        }
    }
    for (k = 0; k < 16; k++) {
        int idx = blk_bits(p, k ? 65 + 4 * k - 1 : 65, k ? 4 : 3);
        int w = bc7_weight(4, idx);

        for (c = 0; c < 3; c++) {
            int i = ((64 - w) * e[0][c] + w * e[1][c] + 32) >> 6;

            t[k][c] = bc6h_half((i * 31) >> 6);
        }
        t[k][3] = 1;
    }
}

/*
 * ASTC LDR with square footprints of 4 or 6 texels: a quarter of the
 * blocks void-extent (one UNORM16 colour), the others one partition of
 * CEM 12 (RGBA direct, 8 endpoint values of 8 bits from bit 17) with a
 * grid of plain-bit weights: 4x4 of 2 bits (block mode 0x42) on 4x4
 * blocks, 3x3 of 3 bits (0x1bf) on 6x6 ones, infilled.  Results: the
 * 16-bit interpolation C as decode_float16 reads it, Vulkan's default
 * (C / 65536 rounded towards zero to a half float, 65535 reading 1.0).
 */
static double astc_f16(int c)
{
    double v = c / 65536.0;
    int e;

    if (c == 65535) {
        return 1;
    }
    if (v < 1.0 / 16384) {
        return floor(v * 16777216) / 16777216;
    }
    frexp(v, &e);
    return ldexp(floor(ldexp(v, 11 - e)), e - 11);
}

static void astc_make(uint8_t *p, uint32_t seed, bool six)
{
    int k;

    memset(p, 0, 16);
    if (hash32(seed) % 4 == 0) {
        blk_put(p, 0, 9, 0x1fc);
        blk_put(p, 9, 3, 6);
        for (k = 12; k < 64; k += 16) {
            blk_put(p, k, 64 - k < 16 ? 64 - k : 16, 0xffff);
        }
        for (k = 0; k < 4; k++) {
            blk_put(p, 64 + 16 * k, 16, hash32(seed + k) & 0xffff);
        }
        return;
    }
    blk_put(p, 0, 11, six ? 0x1bf : 0x42);
    blk_put(p, 13, 4, 12);
    for (k = 0; k < 8; k++) {
        blk_put(p, 17 + 8 * k, 8, hash32(seed + 3 + k) & 255);
    }
    for (k = 0; k < (six ? 27 : 32); k++) {
        blk_put(p, 127 - k, 1, hash32(seed * 64 + k) & 1);
    }
}

static void astc_decode(const uint8_t *p, double t[][4], int bw)
{
    int g = bw == 6 ? 3 : 4, wb = bw == 6 ? 3 : 2, v[8], e[2][4], k, c;
    int w[16], ds = (1024 + bw / 2) / (bw - 1);

    if ((blk_bits(p, 0, 9)) == 0x1fc) {
        for (k = 0; k < bw * bw; k++) {
            for (c = 0; c < 4; c++) {
                t[k][c] = astc_f16(blk_bits(p, 64 + 16 * c, 16));
            }
        }
        return;
    }
    for (k = 0; k < 8; k++) {
        v[k] = blk_bits(p, 17 + 8 * k, 8);
    }
    /* CEM 12: endpoints swapped and blue-contracted if s1 < s0 */
    for (c = 0; c < 4; c++) {
        bool swap = v[1] + v[3] + v[5] < v[0] + v[2] + v[4];

        e[0][c] = v[2 * c + swap];
        e[1][c] = v[2 * c + !swap];
    }
    if (v[1] + v[3] + v[5] < v[0] + v[2] + v[4]) {
        for (k = 0; k < 2; k++) {
            e[k][0] = (e[k][0] + e[k][2]) >> 1;
            e[k][1] = (e[k][1] + e[k][2]) >> 1;
        }
    }
    /* weights from bit 127 down, replicated to 6 bits, then 0..64 */
    for (k = 0; k < g * g; k++) {
        int q = 0, b;

        for (b = 0; b < wb; b++) {
            q |= blk_bits(p, 127 - (wb * k + b), 1) << b;
        }
        q = wb == 2 ? q << 4 | q << 2 | q : q << 3 | q;
        w[k] = q > 32 ? q + 1 : q;
    }
    for (k = 0; k < bw * bw; k++) {
        int x = k % bw, y = k / bw;
        int gs = (ds * x * (g - 1) + 32) >> 6;
        int gt = (ds * y * (g - 1) + 32) >> 6;
        int js = gs >> 4, fs = gs & 15, jt = gt >> 4, ft = gt & 15;
        int w11 = (fs * ft + 8) >> 4, w10 = ft - w11, w01 = fs - w11;
        int w00 = 16 - fs - ft + w11, i0 = js + jt * g;
        int p00 = w[i0], p01 = js + 1 < g ? w[i0 + 1] : 0;
        int p10 = jt + 1 < g ? w[i0 + g] : 0;
        int p11 = js + 1 < g && jt + 1 < g ? w[i0 + g + 1] : 0;
        int wt = (p00 * w00 + p01 * w01 + p10 * w10 + p11 * w11 + 8) >> 4;

        for (c = 0; c < 4; c++) {
            int c0 = e[0][c] << 8 | e[0][c], c1 = e[1][c] << 8 | e[1][c];

            t[k][c] = astc_f16((c0 * (64 - wt) + c1 * wt + 32) >> 6);
        }
    }
}

static void astc4_make(uint8_t *p, uint32_t seed)
{
    astc_make(p, seed, false);
}

static void astc4_decode(const uint8_t *p, double t[][4])
{
    astc_decode(p, t, 4);
}

static void astc6_make(uint8_t *p, uint32_t seed)
{
    astc_make(p, seed, true);
}

static void astc6_decode(const uint8_t *p, double t[][4])
{
    astc_decode(p, t, 6);
}

/*
 * ASTC HDR (VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK, the HDR profile): blocks
 * astcenc encoded, with its decoder's texels (vk-ops-astc-hdr.h); block b
 * of the image is table entry b
 */
static double astch_half(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;

    return e ? ldexp(m + 1024, (int)e - 25) : ldexp(m, -24);
}

static void astch_make(uint8_t *p, uint32_t seed)
{
    unsigned n = sizeof(astc_hdr_blocks) / sizeof(astc_hdr_blocks[0]);

    memcpy(p, astc_hdr_blocks[(seed / 1000) % n].block, 16);
}

static void astch_decode(const uint8_t *p, double t[][4])
{
    unsigned n = sizeof(astc_hdr_blocks) / sizeof(astc_hdr_blocks[0]);

    for (unsigned i = 0; i < n; i++) {
        if (!memcmp(p, astc_hdr_blocks[i].block, 16)) {
            for (int k = 0; k < 16; k++) {
                for (int c = 0; c < 4; c++) {
                    t[k][c] = astch_half(astc_hdr_blocks[i].texel[k][c]);
                }
            }
            return;
        }
    }
}

static const BlockFmt block_fmts[] = {
    { "cs/sample-bc1", VK_FORMAT_BC1_RGBA_UNORM_BLOCK, 8, 2 / 255.0f,
      bc1_make, bc1_decode },
    { "cs/sample-bc1-srgb", VK_FORMAT_BC1_RGB_SRGB_BLOCK, 8, 5 / 255.0f,
      bc1_make, bc1_srgb_decode },
    { "cs/sample-bc2", VK_FORMAT_BC2_UNORM_BLOCK, 16, 2 / 255.0f,
      bc2_make, bc2_decode },
    { "cs/sample-bc3", VK_FORMAT_BC3_UNORM_BLOCK, 16, 2 / 255.0f,
      bc3_make, bc3_decode },
    { "cs/sample-bc4", VK_FORMAT_BC4_UNORM_BLOCK, 8, 2 / 255.0f,
      bc4_make, bc4_decode },
    { "cs/sample-bc4-snorm", VK_FORMAT_BC4_SNORM_BLOCK, 8, 2 / 127.0f,
      bc4s_make, bc4s_decode },
    { "cs/sample-bc5", VK_FORMAT_BC5_UNORM_BLOCK, 16, 2 / 255.0f,
      bc5u_make, bc5u_decode },
    { "cs/sample-bc5-snorm", VK_FORMAT_BC5_SNORM_BLOCK, 16, 2 / 127.0f,
      bc5_make, bc5_decode },
    { "cs/sample-bc6h", VK_FORMAT_BC6H_UFLOAT_BLOCK, 16, 0,
      bc6h_make, bc6h_decode },
    { "cs/sample-bc7", VK_FORMAT_BC7_UNORM_BLOCK, 16, 1 / 4096.0f,
      bc7_make, bc7_decode },
    { "cs/sample-etc2", VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK, 8, 1 / 4096.0f,
      etc2_make, etc2_decode },
    { "cs/sample-eac", VK_FORMAT_EAC_R11_UNORM_BLOCK, 8, 1 / 4096.0f,
      eac_make, eac_decode },
    { "cs/sample-astc4x4", VK_FORMAT_ASTC_4x4_UNORM_BLOCK, 16, 1 / 255.0f,
      astc4_make, astc4_decode },
    { "cs/sample-astc6x6", VK_FORMAT_ASTC_6x6_UNORM_BLOCK, 16, 1 / 255.0f,
      astc6_make, astc6_decode, 6 },
    { "cs/sample-astc4x4-hdr", VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK, 16, 0,
      astch_make, astch_decode },
};

static VkSampler blk_sampler(Ctx *c, VkFilter f)
{
    VkSamplerCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = f,
        .minFilter = f,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    VkSampler s;

    CHECK_VK(vkCreateSampler(c->dev, &sci, NULL, &s));
    return s;
}

static void test_cs_sample_block(Ctx *c, const BlockFmt *bf)
{
    static const char *what[3] = { "fetch", "nearest", "linear" };
    const int n = BLK_TEXELS, bw = bf->bw ? bf->bw : 4;
    const int nb = (BLK_TEXELS + bw - 1) / bw;
    static double tex[BLK_TEXELS][BLK_TEXELS][4];
    static float want[BLK_TEXELS * BLK_TEXELS * 12];
    static float tolv[BLK_TEXELS * BLK_TEXELS * 12];
    VkFormatProperties fp;
    VkDescriptorImageInfo dii[2];
    VkWriteDescriptorSet w[2];
    VkBufferImageCopy in = bic(0, 0, 0, 0, n, n);
    VkDescriptorSet set;
    VkCommandBuffer cmd;
    VkPipeline pipe;
    VkSampler smp[2];
    Buf o, src, *bufs[] = { &o };
    Img im;
    size_t i, bad = 0, first = 0;
    int b, k, x, y, ch;

    if (!wanted(bf->name)) {
        return;
    }
    vkGetPhysicalDeviceFormatProperties(c->pdev, bf->fmt, &fp);
    if (!(fp.optimalTilingFeatures &
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)) {
        tap_skip(bf->name, "the format cannot be sampled with a linear "
                 "filter");
        return;
    }
    src = make_buf(c, nb * nb * bf->bytes);
    o = make_buf(c, sizeof(want));
    for (b = 0; b < nb * nb; b++) {
        uint8_t *p = (uint8_t *)src.map + b * bf->bytes;
        double t[144][4];

        bf->make(p, 1000 * b + 17);
        bf->decode(p, t);
        for (k = 0; k < bw * bw; k++) {
            int ty = (b / nb) * bw + k / bw, tx = (b % nb) * bw + k % bw;

            for (ch = 0; ch < 4 && tx < n && ty < n; ch++) {
                tex[ty][tx][ch] = t[k][ch];
            }
        }
    }
    for (y = 0; y < n; y++) {
        for (x = 0; x < n; x++) {
            float *e = want + 12 * (y * n + x);
            int x1 = x + 1 < n ? x + 1 : n - 1, y1 = y + 1 < n ? y + 1 : n - 1;

            float *tl = tolv + 12 * (y * n + x);

            for (ch = 0; ch < 4; ch++) {
                double q[4] = { tex[y][x][ch], tex[y][x1][ch],
                                tex[y1][x][ch], tex[y1][x1][ch] };
                double big = 0;

                for (k = 0; k < 4; k++) {
                    big = fabs(q[k]) > big ? fabs(q[k]) : big;
                }
                e[ch] = e[4 + ch] = q[0];
                e[8 + ch] = (q[0] + q[1] + q[2] + q[3]) / 4;
                /* BC6H (tol 0): half floats, to 2^-10 of the value */
                tl[ch] = tl[4 + ch] = bf->tol ? bf->tol : fabs(q[0]) / 1024;
                tl[8 + ch] = bf->tol ? bf->tol + 1.0 / 256
                                     : big / 1024 + big / 256;
            }
        }
    }
    im = make_img_usage(c, bf->fmt, n, n, VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                          VK_IMAGE_USAGE_SAMPLED_BIT);
    pipe = make_pipeline(c, SPV(sample_block));
    smp[0] = blk_sampler(c, VK_FILTER_NEAREST);
    smp[1] = blk_sampler(c, VK_FILTER_LINEAR);
    set = make_set(c, bufs, 1, NULL);
    for (k = 0; k < 2; k++) {
        dii[k] = (VkDescriptorImageInfo) {
            .sampler = smp[k],
            .imageView = im.view,
            .imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        };
        w[k] = (VkWriteDescriptorSet) {
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = 5 + k,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
            .pImageInfo = &dii[k],
        };
    }
    vkUpdateDescriptorSets(c->dev, 2, w, 0, NULL);
    cmd = begin(c);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyBufferToImage(cmd, src.buf, im.img,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &in);
    img_layout(cmd, &im, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    dispatch(cmd, c, pipe, set, NULL, n * n / 64, 1, 1);
    host_barrier(cmd);
    if (check_run(bf->name, submit(c, cmd))) {
        const float *got = o.map;

        corpus_expect(bf->name, got, want, sizeof(want));
        for (i = 0; i < (size_t)n * n * 12; i++) {
            float tol = tolv[i];

            if (!(fabsf(got[i] - want[i]) <= tol) && !bad++) {
                first = i;
            }
        }
        if (!bad) {
            tap_ok(bf->name);
        } else {
            tap_fail(bf->name, "%zu of %d values off by more than %g, first "
                     "at texel (%zu, %zu) (%s, channel %zu): got %g, want %g",
                     bad, n * n * 12, bf->tol, (first / 12) % n,
                     first / 12 / n, what[(first % 12) / 4], first % 4,
                     got[first], want[first]);
        }
    }
    vkDestroyPipeline(c->dev, pipe, NULL);
    vkDestroySampler(c->dev, smp[0], NULL);
    vkDestroySampler(c->dev, smp[1], NULL);
    free_img(c, &im);
    free_buf(c, &o);
    free_buf(c, &src);
}

/*
 * cs/sample-bc1-mips: a 516x260 BC1 texture of 4 levels, each block one
 * colour of its own (both endpoints equal), every level uploaded with
 * vkCmdCopyBufferToImage, then 256 texels fetched across the levels
 * (vk-ops-sample-mips.comp), a quarter of them in level 1's second row
 * of tiles.  The size takes the layout's odd cases: 129 blocks across
 * level 0 need 3 tiles of 64 blocks, so level 1 (65 blocks across, 33
 * down, two rows of tiles) has a padding column, where a compressed
 * image's rows are one block longer (Mesa's ail layout); levels 2 and 3
 * are in the power-of-two miptree, whose tiles a compressed image sizes
 * from level 0 rounded up.  (513 pixels across, 64 blocks at level 1,
 * would make the padded row a tile longer, which Honeykrisp's copies
 * through an uncompressed view of the level do not do: see
 * docs/devel/agx-firmware-model.rst.)  Expected: the block's colour; tolerance
 * 2/255 (lavapipe keeps 8 bits).
 */
#define MIPS_W 516
#define MIPS_H 260
#define MIPS_LEVELS 4
#define MIPS_N 256

static uint16_t mips_colour(int level, int bx, int by)
{
    return hash32(level * 100003 + by * 1009 + bx) & 0xffff;
}

/* A 2D image of a few levels that compute shaders sample, viewed whole */
typedef struct MipImage {
    VkImage img;
    VkDeviceMemory mem;
    VkImageView view;
    uint32_t levels;
} MipImage;

static MipImage make_mip_image(Ctx *c, VkFormat format, uint32_t width,
                               uint32_t height, uint32_t levels)
{
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = { width, height, 1 },
        .mipLevels = levels,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    MipImage m = { .levels = levels };

    m.img = vku_image_from(&c->vd, &ici, VK_IMAGE_ASPECT_COLOR_BIT, 0, &m.mem,
                           &m.view);
    return m;
}

/*
 * Record the copy of @src into every level of @m (region l to level l),
 * leaving the image ready to be sampled
 */
static void upload_mips(VkCommandBuffer cmd, const MipImage *m,
                        const Buf *src, const VkBufferImageCopy *regions)
{
    VkImageMemoryBarrier ib = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT |
                         VK_ACCESS_MEMORY_WRITE_BIT,
        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = m->img,
        .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, m->levels, 0,
                              1 },
    };

    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
                         NULL, 1, &ib);
    vkCmdCopyBufferToImage(cmd, src->buf, m->img,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, m->levels,
                           regions);
    ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    ib.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
                         NULL, 1, &ib);
}

static void free_mip_image(Ctx *c, MipImage *m)
{
    vkDestroyImageView(c->dev, m->view, NULL);
    vkDestroyImage(c->dev, m->img, NULL);
    vkFreeMemory(c->dev, m->mem, NULL);
}

/* @view through samplers @smp[0..n-1] at bindings 5, 6, ... of @set */
static void bind_sampled(Ctx *c, VkDescriptorSet set, VkImageView view,
                         const VkSampler *smp, int n)
{
    VkDescriptorImageInfo dii[2];
    VkWriteDescriptorSet w[2];
    int k;

    for (k = 0; k < n && k < 2; k++) {
        dii[k] = (VkDescriptorImageInfo) {
            .sampler = smp[k],
            .imageView = view,
            .imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        };
        w[k] = (VkWriteDescriptorSet) {
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = 5 + k,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
            .pImageInfo = &dii[k],
        };
    }
    vkUpdateDescriptorSets(c->dev, k, w, 0, NULL);
}

static void test_cs_sample_bc1_mips(Ctx *c)
{
    const char *name = "cs/sample-bc1-mips";
    static float want[MIPS_N * 4];
    VkBufferImageCopy bc[MIPS_LEVELS];
    VkDeviceSize off = 0;
    VkDescriptorSet set;
    VkCommandBuffer cmd;
    VkPipeline pipe;
    VkSampler smp;
    MipImage m;
    Buf o, in, src, *bufs[] = { &o, &in };
    size_t i, bad = 0, first = 0;
    int l, bx, by;

    if (!wanted(name)) {
        return;
    }
    src = make_buf(c, 8 * 129 * 65 * 2);
    for (l = 0; l < MIPS_LEVELS; l++) {
        int wb = ((MIPS_W >> l) + 3) / 4, hb = ((MIPS_H >> l) + 3) / 4;
        uint8_t *p = (uint8_t *)src.map + off;

        for (by = 0; by < hb; by++) {
            for (bx = 0; bx < wb; bx++, p += 8) {
                uint16_t col = mips_colour(l, bx, by);

                p[0] = p[2] = col & 0xff;
                p[1] = p[3] = col >> 8;
                p[4] = p[5] = p[6] = p[7] = 0;
            }
        }
        bc[l] = bic(off, 0, 0, 0, MIPS_W >> l, MIPS_H >> l);
        bc[l].imageSubresource.mipLevel = l;
        off += 8 * wb * hb;
    }
    o = make_buf(c, sizeof(want));
    in = make_buf(c, MIPS_N * 16);
    for (i = 0; i < MIPS_N; i++) {
        int32_t *q = (int32_t *)in.map + 4 * i;
        uint32_t h = hash32(i + 77);
        /* a quarter in level 1's second tile row (blocks 32 down) */
        int lv = i < MIPS_N / 4 ? 1 : (int)(h % MIPS_LEVELS);
        int wl = MIPS_W >> lv, hl = MIPS_H >> lv;
        int x = (h >> 8) % wl;
        int y = i < MIPS_N / 4 ? 128 + (int)((h >> 20) % (hl - 128))
                               : (int)((h >> 20) % hl);
        uint16_t col = mips_colour(lv, x / 4, y / 4);

        q[0] = x;
        q[1] = y;
        q[2] = lv;
        q[3] = 0;
        want[4 * i] = (col >> 11) / 31.0f;
        want[4 * i + 1] = ((col >> 5) & 63) / 63.0f;
        want[4 * i + 2] = (col & 31) / 31.0f;
        want[4 * i + 3] = 1;
    }
    m = make_mip_image(c, VK_FORMAT_BC1_RGB_UNORM_BLOCK, MIPS_W, MIPS_H,
                       MIPS_LEVELS);
    pipe = make_pipeline(c, SPV(sample_mips));
    smp = blk_sampler(c, VK_FILTER_NEAREST);
    set = make_set(c, bufs, 2, NULL);
    bind_sampled(c, set, m.view, &smp, 1);
    cmd = begin(c);
    upload_mips(cmd, &m, &src, bc);
    dispatch(cmd, c, pipe, set, NULL, MIPS_N / 64, 1, 1);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        const float *got = o.map;
        const int32_t *q = in.map;

        corpus_expect(name, got, want, sizeof(want));
        for (i = 0; i < MIPS_N * 4; i++) {
            if (!(fabsf(got[i] - want[i]) <= 2 / 255.0f) && !bad++) {
                first = i;
            }
        }
        if (!bad) {
            tap_ok(name);
        } else {
            tap_fail(name, "%zu of %d values differ, first texel (%d, %d) "
                     "of level %d, channel %zu: got %g, want %g", bad,
                     MIPS_N * 4, q[first / 4 * 4], q[first / 4 * 4 + 1],
                     q[first / 4 * 4 + 2], first % 4, got[first],
                     want[first]);
        }
    }
    vkDestroyPipeline(c->dev, pipe, NULL);
    vkDestroySampler(c->dev, smp, NULL);
    free_mip_image(c, &m);
    free_buf(c, &o);
    free_buf(c, &in);
    free_buf(c, &src);
}

/*
 * cs/sample-aniso: a 64x64 RGBA8 texture of 7 levels whose level 0 has
 * alternate black and white rows (all levels below are mid grey, 128,
 * the rows' average) is sampled with gradients 8 texels long along x and
 * 1 along y (vk-ops-sample-aniso.comp).  With maxAnisotropy 16 the
 * footprint is 8:1, so the lookup stays at level 0 and keeps the row's
 * colour; an isotropic sampler goes to level 3 and reads grey.  The
 * specification leaves the anisotropic footprint to the implementation:
 * the check only asks each result to be within 1/4 of the row's colour
 * (anisotropic) or of the grey (isotropic), which both the model's
 * approximation and lavapipe's filter meet, and a sampler that ignored
 * maxAnisotropy does not.
 */
#define ANISO_SIZE 64
#define ANISO_LEVELS 7

static VkSampler aniso_sampler(Ctx *c, bool aniso)
{
    VkSamplerCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_LINEAR,
        .minFilter = VK_FILTER_LINEAR,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
        .anisotropyEnable = aniso,
        .maxAnisotropy = aniso ? 16 : 1,
        .maxLod = VK_LOD_CLAMP_NONE,
    };
    VkSampler s;

    CHECK_VK(vkCreateSampler(c->dev, &sci, NULL, &s));
    return s;
}

static void test_cs_sample_aniso(Ctx *c)
{
    const char *name = "cs/sample-aniso";
    static float want[ANISO_SIZE * 8];
    VkBufferImageCopy bc[ANISO_LEVELS];
    VkDeviceSize off = 0;
    VkDescriptorSet set;
    VkCommandBuffer cmd;
    VkPipeline pipe;
    VkSampler smp[2];
    MipImage m;
    Buf o, src, *bufs[] = { &o };
    size_t i, bad = 0, first = 0;
    int l, k, x, y;

    if (!wanted(name)) {
        return;
    }
    if (!c->aniso) {
        tap_skip(name, "no samplerAnisotropy");
        return;
    }
    src = make_buf(c, 4 * ANISO_SIZE * ANISO_SIZE * 2);
    for (l = 0; l < ANISO_LEVELS; l++) {
        int n = ANISO_SIZE >> l;
        uint8_t *p = (uint8_t *)src.map + off;

        for (y = 0; y < n; y++) {
            for (x = 0; x < n; x++, p += 4) {
                uint8_t v = l ? 128 : (y & 1) ? 255 : 0;

                p[0] = p[1] = p[2] = v;
                p[3] = 255;
            }
        }
        bc[l] = bic(off, 0, 0, 0, n, n);
        bc[l].imageSubresource.mipLevel = l;
        off += 4 * n * n;
    }
    for (i = 0; i < ANISO_SIZE; i++) {
        for (k = 0; k < 4; k++) {
            want[8 * i + k] = k == 3 ? 1 : (i & 1) ? 1 : 0;
            want[8 * i + 4 + k] = k == 3 ? 1 : 128 / 255.0f;
        }
    }
    o = make_buf(c, sizeof(want));
    m = make_mip_image(c, VK_FORMAT_R8G8B8A8_UNORM, ANISO_SIZE, ANISO_SIZE,
                       ANISO_LEVELS);
    pipe = make_pipeline(c, SPV(sample_aniso));
    smp[0] = aniso_sampler(c, true);
    smp[1] = aniso_sampler(c, false);
    set = make_set(c, bufs, 1, NULL);
    bind_sampled(c, set, m.view, smp, 2);
    cmd = begin(c);
    upload_mips(cmd, &m, &src, bc);
    dispatch(cmd, c, pipe, set, NULL, 1, 1, 1);
    host_barrier(cmd);
    if (check_run(name, submit(c, cmd))) {
        const float *got = o.map;

        corpus_expect(name, got, want, sizeof(want));
        for (i = 0; i < ANISO_SIZE * 8; i++) {
            if (!(fabsf(got[i] - want[i]) <= 0.25f) && !bad++) {
                first = i;
            }
        }
        if (!bad) {
            tap_ok(name);
        } else {
            tap_fail(name, "%zu of %d values off by more than 1/4, first at "
                     "row %zu (%s, channel %zu): got %g, want %g", bad,
                     ANISO_SIZE * 8, first / 8,
                     first % 8 < 4 ? "anisotropic" : "isotropic", first % 4,
                     got[first], want[first]);
        }
    }
    vkDestroyPipeline(c->dev, pipe, NULL);
    vkDestroySampler(c->dev, smp[0], NULL);
    vkDestroySampler(c->dev, smp[1], NULL);
    free_mip_image(c, &m);
    free_buf(c, &o);
    free_buf(c, &src);
}

static void run_all(Ctx *c)
{
    test_fill(c);
    test_update(c);
    test_copy(c);
    test_clear_image(c);
    test_buffer_image(c);
    test_image_image(c);
    test_render_pass_clear(c, "render-pass-clear",
                           VK_IMAGE_USAGE_STORAGE_BIT);
    test_render_pass_clear(c, "render-pass-clear/compressed", 0);
    test_events(c);
    test_queries(c);
    test_cs_global_id(c);
    test_cs_push(c);
    test_cs_reduce(c);
    test_cs_atomics(c);
    test_cs_atomics_shared(c);
    test_cs_subgroup(c, "cs/subgroup-add", "add",
                     VK_SUBGROUP_FEATURE_BASIC_BIT |
                     VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, SPV(subgroup_add));
    test_cs_subgroup(c, "cs/subgroup-ballot", "ballot",
                     VK_SUBGROUP_FEATURE_BASIC_BIT |
                     VK_SUBGROUP_FEATURE_BALLOT_BIT, SPV(subgroup_ballot));
    test_cs_subgroup(c, "cs/subgroup-shuffle", "shuffle",
                     VK_SUBGROUP_FEATURE_BASIC_BIT |
                     VK_SUBGROUP_FEATURE_SHUFFLE_BIT, SPV(subgroup_shuffle));
    test_cs_int16(c);
    test_cs_int64(c);
    test_cs_float(c, "cs/float16", c->fp16, "no shaderFloat16", SPV(fp16));
    test_cs_float(c, "cs/float64", c->fp64, "no shaderFloat64", SPV(fp64));
    test_cs_flow(c);
    test_cs_image(c);
    test_cs_sample(c);
    for (size_t i = 0; i < sizeof(block_fmts) / sizeof(block_fmts[0]); i++) {
        test_cs_sample_block(c, &block_fmts[i]);
    }
    test_cs_sample_bc1_mips(c);
    test_cs_sample_aniso(c);
}

/*
 * The bench: one dispatch of vk-ops-flow.comp over @groups workgroups,
 * timed over @loops submissions (after one untimed), its result checked.
 */
static void bench(Ctx *c, uint32_t groups, int loops)
{
    uint32_t n = groups * 64, i, bad = 0, steps, acc;
    VkPipeline pipe = make_pipeline(c, SPV(flow));
    Buf o = make_buf(c, n * 8), in = make_buf(c, n * 4), *bufs[] = { &o, &in };
    VkDescriptorSet set = make_set(c, bufs, 2, NULL);
    double t0 = 0, best = 1e30, t;
    VkCommandBuffer cmd;
    int k;

    for (i = 0; i < n; i++) {
        ((uint32_t *)in.map)[i] = flow_input(i);
    }
    for (k = 0; k <= loops; k++) {
        cmd = begin(c);
        dispatch(cmd, c, pipe, set, NULL, groups, 1, 1);
        host_barrier(cmd);
        t = now_ms();
        CHECK_VK(submit(c, cmd));
        t = now_ms() - t;
        if (k == 0) {
            t0 = now_ms();
        } else {
            best = t < best ? t : best;
        }
    }
    t0 = (now_ms() - t0) / loops;
    for (i = 0; i < n; i++) {
        flow_ref(flow_input(i), &steps, &acc);
        bad += ((uint32_t *)o.map)[2 * i] != steps ||
               ((uint32_t *)o.map)[2 * i + 1] != acc;
    }
    printf("vk-ops: bench %s: %u invocations of vk-ops-flow: %.2f ms per "
           "dispatch (mean of %d, best %.2f ms), %s (%u of %u wrong)\n",
           vku_driver_name(c->driver), n, t0, loops, best,
           bad ? "result WRONG" : "result right", bad, n);
    free_buf(c, &o);
    free_buf(c, &in);
    vkDestroyPipeline(c->dev, pipe, NULL);
}

int main(int argc, char **argv)
{
    VkDriverId want = VK_DRIVER_ID_MESA_HONEYKRISP;
    uint32_t groups = 256;
    int i, loops = 10, benchmark = 0;
    VkInstance inst;
    VkPhysicalDevice pd;
    Ctx c = { 0 };
    double t0;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            i++;
            want = !strcmp(argv[i], "lavapipe") ? VK_DRIVER_ID_MESA_LLVMPIPE
                   : !strcmp(argv[i], "any") ? 0
                   : VK_DRIVER_ID_MESA_HONEYKRISP;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--corpus") && i + 1 < argc) {
            corpus = fopen(argv[++i], "a");
            if (!corpus) {
                perror(argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--bench")) {
            benchmark = 1;
        } else if (!strcmp(argv[i], "--groups") && i + 1 < argc) {
            groups = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--loops") && i + 1 < argc) {
            loops = atoi(argv[++i]);
        } else {
            printf("usage: vk-ops [--device honeykrisp|lavapipe|any] "
                   "[--only NAME,...] [--corpus FILE] | --bench [--groups N] "
                   "[--loops N]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    vku_prog = "vk-ops";
    if (corpus) {
        tap_hook = corpus_result;
    }
    inst = vku_instance("vk-ops", VK_API_VERSION_1_2);

    if (benchmark) {
        static const VkDriverId drivers[] = {
            VK_DRIVER_ID_MESA_HONEYKRISP, VK_DRIVER_ID_MESA_LLVMPIPE,
        };
        int found = 0;

        for (i = 0; i < 2; i++) {
            pd = vku_find_device(inst, drivers[i], 0);
            if (!pd) {
                printf("vk-ops: bench %s: no such device\n",
                       vku_driver_name(drivers[i]));
                continue;
            }
            open_device(&c, inst, pd);
            printf("vk-ops: bench on %s\n", c.name);
            bench(&c, groups, loops > 0 ? loops : 1);
            close_device(&c);
            found++;
        }
        vkDestroyInstance(inst, NULL);
        return found ? 0 : 2;
    }

    pd = vku_find_device(inst, want, 0);
    if (!pd) {
        printf("vk-ops: no %s device\n",
               want ? vku_driver_name(want) : "Vulkan");
        return 2;
    }
    open_device(&c, inst, pd);
    printf("vk-ops: device %s; subgroups: size %u, operations 0x%x; "
           "int16 %d int64 %d float16 %d float64 %d; timestamp bits %u\n",
           c.name, c.subgroup_size, c.subgroup_ops, c.int16, c.int64, c.fp16,
           c.fp64, c.ts_bits);
    t0 = now_ms();
    run_all(&c);
    printf("1..%d\n", tap_checks);
    printf("vk-ops: %d passed, %d failed, %d skipped, in %.0f ms\n",
           tap_checks - tap_failed - tap_skipped, tap_failed, tap_skipped,
           now_ms() - t0);
    close_device(&c);
    vkDestroyInstance(inst, NULL);
    return tap_failed ? 1 : 0;
}
