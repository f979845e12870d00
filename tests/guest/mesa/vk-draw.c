/*
 * vk-draw: a Vulkan render pass checked pixel by pixel.  Written from the
 * Vulkan specification.
 *
 * One 128x128 R8G8B8A8_UNORM colour attachment and a D32_SFLOAT depth
 * attachment, drawn with dynamic rendering (Vulkan 1.3): a clear by the
 * load op, vkCmdClearAttachments over a band, a triangle with a colour
 * per vertex, a flat quad, and two quads under VK_COMPARE_OP_LESS (the
 * nearer drawn first); then copied to a buffer and read back.  Each
 * feature is one TAP line ("ok N name" / "not ok N name - why"), judged
 * against values computed here: exact for clears, flat colours and the
 * depth test, within 2/255 where colours are interpolated.  When the
 * loader also lists lavapipe (Mesa's CPU driver), the same frame is drawn
 * there and the images compared ("matches-lavapipe": at most 1% of the
 * pixels may differ by more than 3/255, on edges).  Then checks in
 * frames of their own (check_zs): depth bias, the stencil test, a
 * layered render into a 2D array image and multiview, exact.  A 4x frame
 * draws two triangles into 4x colour and depth attachments resolved into
 * a single-sampled one by the render pass (msaa-*: judged against the
 * coverage of Vulkan's standard sample locations, and compared with
 * lavapipe's; a precise occlusion query around the draw counts samples;
 * again at custom sample locations, msaa-locations-*); a 4x depth/stencil
 * attachment resolved by the render pass in sample-zero, min and max
 * modes (msaa-zs-resolve-*), the mesh of gles-scene's subpixel-snap, and
 * alpha-to-coverage (msaa-alpha-to-coverage-*).
 *
 * Then "many-small-draws": a second render pass of 6144 small quads in
 * 768 draws, six grids of 32x32 overlapping quads (each reaching 2 pixels
 * into its neighbours), each grid behind the one before, under
 * VK_COMPARE_OP_LESS: only the first grid shows.  More geometry than the
 * first tiled vertex buffer of a queue holds, so the GPU renders it in
 * passes (partial renders), whose colour and depth must carry from one
 * pass to the next (a later pass that lost the depth would let a farther
 * grid show): every pixel checked exactly.  With --host-checks the host
 * (boot-test.py) checks that the GPU's partial render counter moved.
 *
 *   vk-draw [--device honeykrisp|lavapipe] [--host-checks]
 *
 * Exit status: 0 all checks passed, 1 some failed, 2 could not run them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdbool.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "vk-draw-spv.h"
#include "vk-util.h"

#define SIZE        128
#define TIMEOUT_NS  20000000000ull
#define COLOR_FMT   VK_FORMAT_R8G8B8A8_UNORM
#define DEPTH_FMT   VK_FORMAT_D32_SFLOAT
/* A depth image drawn with custom sample locations must say so */
#define LOCATIONS_DEPTH \
    VK_IMAGE_CREATE_SAMPLE_LOCATIONS_COMPATIBLE_DEPTH_BIT_EXT

typedef struct Rgba {
    int c[4];
} Rgba;

typedef uint8_t Image[SIZE][SIZE][4];       /* top row first */

typedef struct Dev {
    VkuDev d;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE + VK_MAX_DRIVER_NAME_SIZE +
              VK_MAX_DRIVER_INFO_SIZE + 8];
    bool output_layer, bias_clamp, multiview;  /* for the zs checks */
    bool stencil_export;
} Dev;

static const Rgba background = { { 26, 38, 77, 255 } };
static const Rgba band = { { 230, 230, 230, 255 } };
static const Rgba near_red = { { 255, 0, 0, 255 } };
static const Rgba far_green = { { 0, 255, 0, 255 } };
static const Rgba flat_gold = { { 255, 204, 0, 255 } };

/* Pixel rectangles: x0, y0, x1, y1 (y down, as Vulkan's framebuffer) */
static const int band_rect[4] = { 0, 112, SIZE, SIZE };
static const int near_quad[4] = { 80, 16, 112, 48 };
static const int far_quad[4] = { 88, 24, 120, 56 };
static const int flat_quad[4] = { 80, 72, 120, 100 };
static const float tri_px[3][2] = { { 8, 100 }, { 72, 100 }, { 40, 36 } };
static const Rgba tri_colour[3] = {
    { { 255, 0, 0, 255 } }, { { 0, 255, 0, 255 } }, { { 0, 0, 255, 255 } }
};

/* --- the vertices -------------------------------------------------------- */

#define VTX_FLOATS  7           /* x y z, r g b a */

enum {
    FIRST_TRI = 0,
    FIRST_FLAT = 3,
    FIRST_NEAR = 9,
    FIRST_FAR = 15,
    NUM_VERTICES = 21,
};

static void put_vertex(float *v, float x, float y, float z, const Rgba *c)
{
    v[0] = x / (SIZE / 2) - 1.0f;
    v[1] = y / (SIZE / 2) - 1.0f;
    v[2] = z;
    for (int i = 0; i < 4; i++) {
        v[3 + i] = c->c[i] / 255.0f;
    }
}

static void put_quad(float *v, const int *r, float z, const Rgba *c)
{
    static const int corner[6][2] = {
        { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 1 }
    };

    for (int i = 0; i < 6; i++) {
        put_vertex(v + i * VTX_FLOATS, r[corner[i][0] * 2],
                   r[1 + corner[i][1] * 2], z, c);
    }
}

static void make_vertices(float *v)
{
    for (int i = 0; i < 3; i++) {
        put_vertex(v + (FIRST_TRI + i) * VTX_FLOATS, tri_px[i][0],
                   tri_px[i][1], 0.5f, &tri_colour[i]);
    }
    put_quad(v + FIRST_FLAT * VTX_FLOATS, flat_quad, 0.5f, &flat_gold);
    put_quad(v + FIRST_NEAR * VTX_FLOATS, near_quad, 0.25f, &near_red);
    put_quad(v + FIRST_FAR * VTX_FLOATS, far_quad, 0.75f, &far_green);
}

/*
 * The many-small-draws frame: GRID_LAYERS grids of GRID_N x GRID_N quads,
 * quad i of a grid covering cell i and GRID_OVER pixels into the cells
 * left of and above it (y down); grid g at depth 0.2 + 0.1 g, behind the
 * ones drawn before it.  Colours from a hash, 8-bit values.
 */
#define GRID_CELL   4
#define GRID_OVER   2
#define GRID_N      (SIZE / GRID_CELL)
#define GRID_LAYERS 6
#define GRID_QUADS  (GRID_N * GRID_N)
#define GRID_DRAW   8                   /* quads per draw */
#define GRID_VERTICES (GRID_LAYERS * GRID_QUADS * 6)

static Rgba grid_colour(int layer, int i)
{
    uint32_t h = hash32(0x9e3779b9u * (layer + 1) + i);
    Rgba c = { { h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 255 } };

    return c;
}

static float grid_depth(int layer)
{
    return 0.2f + 0.1f * layer;
}

static void make_grid(float *v)
{
    for (int g = 0; g < GRID_LAYERS; g++) {
        for (int i = 0; i < GRID_QUADS; i++) {
            int cx = i % GRID_N, cy = i / GRID_N;
            int r[4] = { cx * GRID_CELL - GRID_OVER,
                         cy * GRID_CELL - GRID_OVER,
                         (cx + 1) * GRID_CELL, (cy + 1) * GRID_CELL };
            Rgba c = grid_colour(g, i);

            put_quad(v + (g * GRID_QUADS + i) * 6 * VTX_FLOATS, r,
                     grid_depth(g), &c);
        }
    }
}

/*
 * What shows at pixel (x, y): the nearest grid, the first; in it, of the
 * quads there at the same depth, the first drawn (LESS), the pixel's own
 * cell's
 */
static Rgba grid_at(int x, int y)
{
    return grid_colour(0, (y / GRID_CELL) * GRID_N + x / GRID_CELL);
}

/* --- devices and memory -------------------------------------------------- */

static bool find_device(VkInstance inst, VkDriverId want, Dev *d)
{
    d->d.pdev = vku_find_device(inst, want, 0);
    if (d->d.pdev == VK_NULL_HANDLE) {
        return false;
    }
    vku_device_name(d->d.pdev, d->name, sizeof(d->name));
    return true;
}

/* Does @pdev have device extension @name? */
static bool has_extension(VkPhysicalDevice pdev, const char *name)
{
    VkExtensionProperties ext[512];
    uint32_t n = 512;

    if (vkEnumerateDeviceExtensionProperties(pdev, NULL, &n, ext) < 0) {
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!strcmp(ext[i].extensionName, name)) {
            return true;
        }
    }
    return false;
}

/* @sample_locations: with VK_EXT_sample_locations (the 4x frame's) */
static void open_device(Dev *d, bool sample_locations)
{
    static const char *sref_ext = VK_EXT_SHADER_STENCIL_EXPORT_EXTENSION_NAME;
    const char *ext[2];
    uint32_t n_ext = 0;
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .dynamicRendering = VK_TRUE,
    };
    VkPhysicalDeviceVulkan11Features f11 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
    };
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &f11,
    };
    VkPhysicalDeviceFeatures2 f2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &f12,
    };

    /* what the depth/stencil and layer checks use, where there is */
    vkGetPhysicalDeviceFeatures2(d->d.pdev, &f2);
    d->output_layer = f12.shaderOutputLayer;
    d->bias_clamp = f2.features.depthBiasClamp;
    d->multiview = f11.multiview;
    f11 = (VkPhysicalDeviceVulkan11Features) {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
        .pNext = &f13,
        .multiview = d->multiview,
    };
    f12 = (VkPhysicalDeviceVulkan12Features) {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &f11,
        .shaderOutputLayer = d->output_layer,
    };
    /* and precise occlusion queries (the 4x frame's: samples passed) */
    f2 = (VkPhysicalDeviceFeatures2) {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &f12,
        .features.depthBiasClamp = d->bias_clamp,
        .features.occlusionQueryPrecise = VK_TRUE,
    };
    d->stencil_export = has_extension(d->d.pdev, sref_ext);
    if (d->stencil_export) {
        ext[n_ext++] = sref_ext;
    }
    if (sample_locations) {
        ext[n_ext++] = VK_EXT_SAMPLE_LOCATIONS_EXTENSION_NAME;
    }
    if (!vku_open(&d->d, d->d.pdev, VK_QUEUE_GRAPHICS_BIT, &f2, n_ext,
                  ext)) {
        printf("vk-draw: %s has no graphics queue\n", d->name);
        exit(2);
    }
}

static VkBuffer make_buffer(Dev *d, VkDeviceSize size,
                            VkBufferUsageFlags usage, void **map)
{
    VkDeviceMemory m;

    return vku_buffer(&d->d, size, usage, NULL, &m, map);
}

static VkImageView make_image(Dev *d, VkFormat fmt, VkImageUsageFlags usage,
                              VkImageAspectFlags aspect, VkImage *img)
{
    VkDeviceMemory m;
    VkImageView view;

    *img = vku_image(&d->d, fmt, SIZE, SIZE, usage, aspect,
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &m, &view);
    return view;
}

/* The same, of @samples samples per pixel (vku_image makes one) */
static VkImageView make_ms_image(Dev *d, VkFormat fmt,
                                 VkImageUsageFlags usage,
                                 VkImageAspectFlags aspect,
                                 VkSampleCountFlagBits samples,
                                 VkImageCreateFlags flags, VkImage *img)
{
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .flags = flags,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = fmt,
        .extent = { SIZE, SIZE, 1 },
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = samples,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
    };
    VkDeviceMemory m;
    VkImageView view;

    *img = vku_image_from(&d->d, &ici, aspect,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &m, &view);
    return view;
}

/* --- the pipeline -------------------------------------------------------- */

/* What a pipeline does beyond the frame's */
typedef struct PipeExtra {
    bool additive;              /* colour added, alpha replaced */
    bool no_depth;              /* no depth test */
    bool alpha_to_coverage;     /* with vk-draw-a2c.frag */
} PipeExtra;

/*
 * @locs: custom sample locations (VK_EXT_sample_locations), or NULL;
 * @x: NULL, or what more it does
 */
static VkPipeline make_pipeline(Dev *d, VkPipelineLayout layout,
                                VkSampleCountFlagBits samples,
                                const VkSampleLocationEXT *locs,
                                const PipeExtra *x)
{
    static const PipeExtra none;
    VkPipelineSampleLocationsStateCreateInfoEXT sl = {
        .sType =
            VK_STRUCTURE_TYPE_PIPELINE_SAMPLE_LOCATIONS_STATE_CREATE_INFO_EXT,
        .sampleLocationsEnable = VK_TRUE,
        .sampleLocationsInfo = {
            .sType = VK_STRUCTURE_TYPE_SAMPLE_LOCATIONS_INFO_EXT,
            .sampleLocationsPerPixel = samples,
            .sampleLocationGridSize = { 1, 1 },
            .sampleLocationsCount = samples,
            .pSampleLocations = locs,
        },
    };
    VkFormat color_fmt = COLOR_FMT;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &color_fmt,
        .depthAttachmentFormat = DEPTH_FMT,
    };
    VkPipelineShaderStageCreateInfo stages[2] = {
        {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_VERTEX_BIT,
            .module = vku_module(&d->d, vk_draw_vert_spv,
                                 sizeof(vk_draw_vert_spv)),
            .pName = "main",
        }, {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
            .module = x && x->alpha_to_coverage ?
                vku_module(&d->d, vk_draw_a2c_frag_spv,
                           sizeof(vk_draw_a2c_frag_spv)) :
                vku_module(&d->d, vk_draw_frag_spv,
                           sizeof(vk_draw_frag_spv)),
            .pName = "main",
        },
    };
    VkVertexInputBindingDescription vb = {
        .stride = VTX_FLOATS * sizeof(float),
    };
    VkVertexInputAttributeDescription va[2] = {
        { .location = 0, .format = VK_FORMAT_R32G32B32_SFLOAT },
        { .location = 1, .format = VK_FORMAT_R32G32B32A32_SFLOAT,
          .offset = 3 * sizeof(float) },
    };
    VkPipelineVertexInputStateCreateInfo vis = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = 2,
        .pVertexAttributeDescriptions = va,
    };
    VkPipelineInputAssemblyStateCreateInfo ias = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    };
    VkViewport vp = { 0, 0, SIZE, SIZE, 0.0f, 1.0f };
    VkRect2D sc = { { 0, 0 }, { SIZE, SIZE } };
    VkPipelineViewportStateCreateInfo vps = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .pViewports = &vp,
        .scissorCount = 1,
        .pScissors = &sc,
    };
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = samples,
        .pNext = locs ? &sl : NULL,
    };
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE,
        .depthWriteEnable = VK_TRUE,
        .depthCompareOp = VK_COMPARE_OP_LESS,
    };
    VkPipelineColorBlendAttachmentState cba = {
        .colorWriteMask = 0xf,
    };

    x = x ? x : &none;
    ms.alphaToCoverageEnable = x->alpha_to_coverage;
    ds.depthTestEnable = ds.depthWriteEnable = !x->no_depth;
    if (x->additive) {
        cba = (VkPipelineColorBlendAttachmentState) {
            .blendEnable = VK_TRUE,
            .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
            .dstColorBlendFactor = VK_BLEND_FACTOR_ONE,
            .colorBlendOp = VK_BLEND_OP_ADD,
            .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
            .dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO,
            .alphaBlendOp = VK_BLEND_OP_ADD,
            .colorWriteMask = 0xf,
        };
    }
    VkPipelineColorBlendStateCreateInfo cbs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &cba,
    };
    VkGraphicsPipelineCreateInfo gpci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rci,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vis,
        .pInputAssemblyState = &ias,
        .pViewportState = &vps,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = &ds,
        .pColorBlendState = &cbs,
        .layout = layout,
    };
    VkPipeline pipe;

    CHECK_VK(vkCreateGraphicsPipelines(d->d.dev, VK_NULL_HANDLE, 1, &gpci,
                                       NULL, &pipe));
    return pipe;
}

/* --- one frame ----------------------------------------------------------- */

/* Which frame draw() draws */
typedef enum Frame {
    FRAME_SCENE,                /* the frame's clears and draws */
    FRAME_MANY,                 /* many-small-draws */
    FRAME_SNAP,                 /* subpixel-snap */
} Frame;

static void record(VkCommandBuffer cmd, VkPipeline pipe, VkBuffer vbuf,
                   VkImage color, VkImageView color_view, VkImage depth,
                   VkImageView depth_view, VkBuffer out, Frame frame)
{
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = color_view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth_view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = { 1.0f, 0 },
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = { { 0, 0 }, { SIZE, SIZE } },
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
        .pDepthAttachment = &da,
    };
    VkClearAttachment clear = {
        .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
    };
    VkClearRect rect = {
        .rect = {
            { band_rect[0], band_rect[1] },
            { band_rect[2] - band_rect[0], band_rect[3] - band_rect[1] },
        },
        .layerCount = 1,
    };
    VkBufferImageCopy copy = {
        .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
        .imageExtent = { SIZE, SIZE, 1 },
    };
    VkDeviceSize zero = 0;

    for (int i = 0; i < 4; i++) {
        ca.clearValue.color.float32[i] =
            frame == FRAME_SNAP ? 0 : background.c[i] / 255.0f;
        clear.clearValue.color.float32[i] = band.c[i] / 255.0f;
    }
    vku_image_barrier(cmd, color, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
    vku_image_barrier(cmd, depth, VK_IMAGE_ASPECT_DEPTH_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT);
    vkCmdBeginRendering(cmd, &ri);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdBindVertexBuffers(cmd, 0, 1, &vbuf, &zero);
    if (frame == FRAME_MANY) {
        for (int i = 0; i < GRID_VERTICES; i += GRID_DRAW * 6) {
            vkCmdDraw(cmd, GRID_DRAW * 6, 1, i, 0);
        }
    } else if (frame == FRAME_SNAP) {
        vkCmdDraw(cmd, SNAP_TRIS * 3, 1, 0, 0);
    } else {
        vkCmdClearAttachments(cmd, 1, &clear, 1, &rect);
        vkCmdDraw(cmd, 3, 1, FIRST_TRI, 0);
        vkCmdDraw(cmd, 6, 1, FIRST_FLAT, 0);
        vkCmdDraw(cmd, 6, 1, FIRST_NEAR, 0);
        vkCmdDraw(cmd, 6, 1, FIRST_FAR, 0);
    }
    vkCmdEndRendering(cmd);
    vku_image_barrier(cmd, color, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyImageToBuffer(cmd, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           out, 1, &copy);
}

/*
 * The 4x frame: two triangles under the depth test (the nearer drawn
 * first) into a 4x colour attachment and a 4x depth attachment, the
 * colour resolved (VK_RESOLVE_MODE_AVERAGE_BIT) into a single-sampled
 * one at the end of the render pass, which is copied out
 */
typedef struct MsTri {
    float v[3][2];              /* framebuffer pixels, y down */
    float z;
    const Rgba *c;
} MsTri;

#define MS_SAMPLES  4

static const MsTri ms_tris[2] = {
    { { { 12.6f, 11.4f }, { 116.2f, 25.8f }, { 41.2f, 118.4f } }, 0.25f,
      &near_red },
    { { { 60.4f, 6.2f }, { 125.4f, 80.8f }, { 19.6f, 101.8f } }, 0.75f,
      &far_green },
};

static void msaa_vertices(float *v)
{
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 3; k++) {
            put_vertex(v + (3 * i + k) * VTX_FLOATS, ms_tris[i].v[k][0],
                       ms_tris[i].v[k][1], ms_tris[i].z, ms_tris[i].c);
        }
    }
}

static void msaa_record(VkCommandBuffer cmd, VkPipeline pipe, VkBuffer vbuf,
                        VkImage color, VkImageView color_view, VkImage depth,
                        VkImageView depth_view, VkImage resolved,
                        VkImageView resolved_view, VkBuffer out,
                        VkQueryPool query)
{
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = color_view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT,
        .resolveImageView = resolved_view,
        .resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth_view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = { 1.0f, 0 },
    };
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = { { 0, 0 }, { SIZE, SIZE } },
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
        .pDepthAttachment = &da,
    };
    VkBufferImageCopy copy = {
        .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
        .imageExtent = { SIZE, SIZE, 1 },
    };
    VkDeviceSize zero = 0;

    for (int i = 0; i < 4; i++) {
        ca.clearValue.color.float32[i] = background.c[i] / 255.0f;
    }
    vku_image_barrier(cmd, color, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
    vku_image_barrier(cmd, resolved, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
    vku_image_barrier(cmd, depth, VK_IMAGE_ASPECT_DEPTH_BIT,
                      VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, 0,
                      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT);
    vkCmdResetQueryPool(cmd, query, 0, 1);
    vkCmdBeginRendering(cmd, &ri);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdBindVertexBuffers(cmd, 0, 1, &vbuf, &zero);
    vkCmdBeginQuery(cmd, query, 0, VK_QUERY_CONTROL_PRECISE_BIT);
    vkCmdDraw(cmd, 6, 1, 0, 0);
    vkCmdEndQuery(cmd, query, 0);
    vkCmdEndRendering(cmd);
    vku_image_barrier(cmd, resolved, VK_IMAGE_ASPECT_COLOR_BIT,
                      VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT,
                      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyImageToBuffer(cmd, resolved,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, out, 1,
                           &copy);
}

/*
 * Draws the 4x frame on @d (opened here, closed after) into @img: its
 * precise occlusion query's result to *@passed (unless NULL), at the
 * sample locations @locs (standard if NULL)
 */
static void draw_msaa(Dev *d, Image img, uint64_t *passed,
                      const VkSampleLocationEXT *locs, bool a2c)
{
    static const PipeExtra a2c_pipe = {
        .no_depth = true, .alpha_to_coverage = true,
    };
    static const int whole[4] = { 0, 0, SIZE, SIZE };
    static float verts[6 * VTX_FLOATS];
    const PipeExtra *x = a2c ? &a2c_pipe : NULL;
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
    };
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    };
    VkQueryPoolCreateInfo qpci = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_OCCLUSION,
        .queryCount = 1,
    };
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_4_BIT;
    VkImage color, depth, resolved;
    VkImageView color_view, depth_view, resolved_view;
    VkPipelineLayout layout;
    VkQueryPool query;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkBuffer vbuf, out;
    void *vmap, *omap;

    open_device(d, locs != NULL);
    if (a2c) {
        put_quad(verts, whole, 0.5f, &background);
    } else {
        msaa_vertices(verts);
    }
    vbuf = make_buffer(d, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                       &vmap);
    memcpy(vmap, verts, sizeof(verts));
    out = make_buffer(d, sizeof(Image), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      &omap);
    memset(omap, 0, sizeof(Image));
    color_view = make_ms_image(d, COLOR_FMT,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT, samples, 0, &color);
    depth_view = make_ms_image(d, DEPTH_FMT,
                               VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                               VK_IMAGE_ASPECT_DEPTH_BIT, samples,
                               locs ? LOCATIONS_DEPTH : 0, &depth);
    resolved_view = make_image(d, COLOR_FMT,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               VK_IMAGE_ASPECT_COLOR_BIT, &resolved);
    CHECK_VK(vkCreatePipelineLayout(d->d.dev, &plci, NULL, &layout));
    CHECK_VK(vkCreateQueryPool(d->d.dev, &qpci, NULL, &query));
    cpci.queueFamilyIndex = d->d.family;
    CHECK_VK(vkCreateCommandPool(d->d.dev, &cpci, NULL, &pool));
    cmd = vku_begin(&d->d, pool, 0);
    msaa_record(cmd, make_pipeline(d, layout, samples, locs, x), vbuf, color,
                color_view, depth, depth_view, resolved, resolved_view, out,
                query);
    CHECK_VK(vku_submit_wait(&d->d, VK_NULL_HANDLE, cmd, TIMEOUT_NS));
    memcpy(img, omap, sizeof(Image));
    if (passed) {
        CHECK_VK(vkGetQueryPoolResults(d->d.dev, query, 0, 1,
                                       sizeof(*passed), passed,
                                       sizeof(*passed),
                                       VK_QUERY_RESULT_64_BIT |
                                       VK_QUERY_RESULT_WAIT_BIT));
    }
    /* the process ends soon: the device goes with everything it holds */
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/*
 * subpixel-snap's frame: tap.c's mesh in the top left 64x64 pixels,
 * window = 64 ndc + 64 exact, red 1/255 and alpha the triangle's index
 * + 1 (blended: red added, alpha replaced; no depth test)
 */
static void make_snap(float *v)
{
    static int32_t mesh[SNAP_TRIS][3][2];

    snap_mesh(mesh);
    for (int t = 0; t < SNAP_TRIS; t++) {
        for (int k = 0; k < 3; k++) {
            float *o = v + (3 * t + k) * VTX_FLOATS;

            o[0] = mesh[t][k][0] / (float)(SNAP_UNIT * SIZE / 2) - 1;
            o[1] = mesh[t][k][1] / (float)(SNAP_UNIT * SIZE / 2) - 1;
            o[2] = 0.5f;
            o[3] = 1 / 255.0f;
            o[4] = 0;
            o[5] = 0;
            o[6] = (t + 1) / 255.0f;
        }
    }
}

/* Draws @frame on @d (opened here, closed after) into @img */
static void draw(Dev *d, Image img, Frame frame)
{
    static const PipeExtra snap = { .additive = true, .no_depth = true };
    static float verts[GRID_VERTICES * VTX_FLOATS];
    const PipeExtra *x = frame == FRAME_SNAP ? &snap : NULL;
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
    };
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
    };
    VkImage color, depth;
    VkImageView color_view, depth_view;
    VkPipelineLayout layout;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkBuffer vbuf, out;
    void *vmap, *omap;

    open_device(d, false);
    if (frame == FRAME_MANY) {
        make_grid(verts);
    } else if (frame == FRAME_SNAP) {
        make_snap(verts);
    } else {
        make_vertices(verts);
    }
    vbuf = make_buffer(d, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                       &vmap);
    memcpy(vmap, verts, sizeof(verts));
    out = make_buffer(d, sizeof(Image), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      &omap);
    memset(omap, 0, sizeof(Image));
    color_view = make_image(d, COLOR_FMT,
                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            VK_IMAGE_ASPECT_COLOR_BIT, &color);
    depth_view = make_image(d, DEPTH_FMT,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                            VK_IMAGE_ASPECT_DEPTH_BIT, &depth);
    CHECK_VK(vkCreatePipelineLayout(d->d.dev, &plci, NULL, &layout));
    cpci.queueFamilyIndex = d->d.family;
    CHECK_VK(vkCreateCommandPool(d->d.dev, &cpci, NULL, &pool));
    cmd = vku_begin(&d->d, pool, 0);
    record(cmd, make_pipeline(d, layout, VK_SAMPLE_COUNT_1_BIT, NULL, x),
           vbuf, color, color_view, depth, depth_view, out, frame);
    CHECK_VK(vku_submit_wait(&d->d, VK_NULL_HANDLE, cmd, TIMEOUT_NS));
    memcpy(img, omap, sizeof(Image));
    /* the process ends soon: the device goes with everything it holds */
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/* --- the checks ---------------------------------------------------------- */

typedef struct Probe {
    int x, y;
    const Rgba *want;
} Probe;

static void check_probes(Image img, const char *name, const Probe *p, int n,
                         int tol)
{
    char why[160] = "";
    bool ok = true;

    for (int i = 0; i < n && ok; i++) {
        const uint8_t *px = img[p[i].y][p[i].x];

        for (int c = 0; c < 4 && ok; c++) {
            ok = abs(px[c] - p[i].want->c[c]) <= tol;
        }
        if (!ok) {
            snprintf(why, sizeof(why), "pixel (%d,%d) is %02x%02x%02x%02x, "
                     "expected %02x%02x%02x%02x (+-%d)", p[i].x, p[i].y,
                     px[0], px[1], px[2], px[3], p[i].want->c[0],
                     p[i].want->c[1], p[i].want->c[2], p[i].want->c[3], tol);
        }
    }
    tap_report(name, ok, why);
}

/* The smooth triangle's colour at a pixel centre, from barycentrics */
static Rgba smooth_at(float x, float y)
{
    const float (*t)[2] = tri_px;
    float area = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) -
                 (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    float w1 = ((x - t[0][0]) * (t[2][1] - t[0][1]) -
                (t[2][0] - t[0][0]) * (y - t[0][1])) / area;
    float w2 = ((t[1][0] - t[0][0]) * (y - t[0][1]) -
                (x - t[0][0]) * (t[1][1] - t[0][1])) / area;
    float w[3] = { 1.0f - w1 - w2, w1, w2 };
    Rgba c = { { 0, 0, 0, 255 } };

    for (int i = 0; i < 3; i++) {
        float v = 0;

        for (int k = 0; k < 3; k++) {
            v += w[k] * tri_colour[k].c[i];
        }
        c.c[i] = (int)(v + 0.5f);
    }
    return c;
}

static void check_frame(Image img)
{
    static const int at[3][2] = { { 40, 80 }, { 20, 96 }, { 60, 96 } };
    Rgba smooth[3];
    Probe clear[] = {
        { 0, 0, &background }, { SIZE - 1, 111, &background },
        { 70, 20, &background },
    };
    Probe band_p[] = {
        { 0, 112, &band }, { SIZE - 1, SIZE - 1, &band }, { 60, 120, &band },
    };
    Probe flat[] = {
        { 80, 72, &flat_gold }, { 119, 99, &flat_gold },
        { 100, 85, &flat_gold }, { 79, 85, &background },
    };
    Probe depth[] = {
        { 84, 20, &near_red }, { 100, 40, &near_red }, { 111, 47, &near_red },
        { 116, 52, &far_green }, { 92, 52, &far_green },
    };
    Probe smooth_p[3];

    check_probes(img, "clear-load-op", clear, 3, 0);
    check_probes(img, "clear-attachments", band_p, 3, 0);
    for (int i = 0; i < 3; i++) {
        smooth[i] = smooth_at(at[i][0] + 0.5f, at[i][1] + 0.5f);
        smooth_p[i] = (Probe){ at[i][0], at[i][1], &smooth[i] };
    }
    check_probes(img, "smooth-triangle", smooth_p, 3, 2);
    check_probes(img, "flat-quad", flat, 4, 0);
    check_probes(img, "depth-test", depth, 5, 0);
}

static void check_many(Image img)
{
    char why[160] = "";
    bool ok = true;

    for (int y = 0; y < SIZE && ok; y++) {
        for (int x = 0; x < SIZE && ok; x++) {
            Rgba c = grid_at(x, y);

            for (int i = 0; i < 4 && ok; i++) {
                ok = img[y][x][i] == c.c[i];
            }
            if (!ok) {
                snprintf(why, sizeof(why), "pixel (%d,%d) is "
                         "%02x%02x%02x%02x, expected %02x%02x%02x%02x", x, y,
                         img[y][x][0], img[y][x][1], img[y][x][2],
                         img[y][x][3], c.c[0], c.c[1], c.c[2], c.c[3]);
            }
        }
    }
    tap_report("many-small-draws", ok, why);
}

static void host_request(bool host, const char *req)
{
    if (host) {
        printf("AGX-TEST: host: %s\n", req);
        usleep(300 * 1000);
    }
}

/*
 * The 4x frame's checks.  Vulkan's standard sample locations (the
 * specification's table, used when the device reports
 * standardSampleLocations) decide, for each sample, which triangle covers
 * it and wins the depth test; a resolved pixel is the mean of its
 * samples.  Pixels whose samples agree must be exact (msaa-interior), the
 * others (edges) within 1/255 of the mean (msaa-edges, at least 200 of
 * them); samples closer than 1/100 pixel to an edge (where the fill rule
 * decides, and where GPUs snap vertices to their subpixel grid) leave
 * their pixel unchecked.
 */
static void judge_msaa(Image img, const char *prefix,
                       const float pos[MS_SAMPLES][2], const char *skip_why,
                       const uint64_t *passed);

static void check_msaa(Image img, bool standard, uint64_t passed)
{
    static const float pos[MS_SAMPLES][2] = {
        { 0.375f, 0.125f }, { 0.875f, 0.375f },
        { 0.125f, 0.625f }, { 0.625f, 0.875f },
    };

    judge_msaa(img, "msaa", pos, standard ? NULL
                                          : "no standard sample locations",
               &passed);
}

/*
 * The 4x frame's checks (@prefix-interior, @prefix-edges and with
 * @passed @prefix-occlusion-samples) for samples at @pos; with @skip,
 * the reason they cannot run
 */
static void judge_msaa(Image img, const char *prefix,
                       const float pos[MS_SAMPLES][2], const char *skip_why,
                       const uint64_t *passed)
{
    char why[160] = "", ewhy[160] = "", name[64];
    bool standard = !skip_why;
    bool interior_ok = standard, edges_ok = standard;
    int edges = 0, covered = 0, unsure = 0;

    for (int y = 0; standard && y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            const Rgba *c[MS_SAMPLES];
            bool same = true, skip = false;

            for (int s = 0; s < MS_SAMPLES; s++) {
                float z = 1.0f;

                c[s] = &background;
                for (int i = 0; i < 2; i++) {
                    int in = tri_inside(ms_tris[i].v, x + pos[s][0],
                                       y + pos[s][1]);

                    skip |= in < 0;
                    unsure += in < 0;
                    if (in > 0 && ms_tris[i].z < z) {
                        z = ms_tris[i].z;
                        c[s] = ms_tris[i].c;
                    }
                }
                same &= c[s] == c[0];
                covered += c[s] != &background;
            }
            if (skip) {
                continue;
            }
            edges += !same;
            for (int i = 0; i < 4; i++) {
                int sum = 0, got = img[y][x][i];

                for (int s = 0; s < MS_SAMPLES; s++) {
                    sum += c[s]->c[i];
                }
                if (same && got != c[0]->c[i] && interior_ok) {
                    interior_ok = false;
                    snprintf(why, sizeof(why), "pixel (%d,%d) channel %d is "
                             "%d, expected %d", x, y, i, got, c[0]->c[i]);
                } else if (!same && fabs(got - sum / 4.0) > 1 && edges_ok) {
                    edges_ok = false;
                    snprintf(ewhy, sizeof(ewhy), "edge pixel (%d,%d) "
                             "channel %d is %d, expected %.2f (+-1)", x, y,
                             i, got, sum / 4.0);
                }
            }
        }
    }
    if (edges_ok && edges < 200) {
        edges_ok = false;
        snprintf(ewhy, sizeof(ewhy), "only %d edge pixels", edges);
    }
    snprintf(name, sizeof(name), "%s-interior", prefix);
    if (skip_why) {
        tap_skip(name, skip_why);
    } else {
        tap_report(name, interior_ok, why);
    }
    snprintf(name, sizeof(name), "%s-edges", prefix);
    if (skip_why) {
        tap_skip(name, skip_why);
    } else {
        tap_report(name, edges_ok, ewhy);
    }
    if (!passed) {
        return;
    }
    /*
     * A precise occlusion query counts the samples that passed: every
     * covered sample here (the nearer triangle's, then the farther one's
     * where the nearer does not cover them); samples on an edge either
     */
    snprintf(why, sizeof(why), "%" PRIu64 " samples passed, expected %d "
             "(+-%d)", *passed, covered, unsure);
    printf("vk-draw: %s occlusion query: %s\n", prefix, why);
    snprintf(name, sizeof(name), "%s-occlusion-samples", prefix);
    tap_report(name, standard &&
               llabs((long long)*passed - covered) <= unsure, why);
}

/*
 * subpixel-snap: tap.c's mesh (98 triangles whose inner vertices lie a
 * fraction of a 1/256 step off the grid near pixel centres) judged by
 * snap_judge() against its vertices snapped to 1/256 pixel: Honeykrisp's
 * and lavapipe's subPixelPrecisionBits are 8; the rest of the frame empty
 */
static void check_snap(Image img)
{
    static uint8_t sub[SNAP_SIZE][SNAP_SIZE][4];
    char why[200] = "";
    bool ok = true;

    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            if (x < SNAP_SIZE && y < SNAP_SIZE) {
                memcpy(sub[y][x], img[y][x], 4);
            } else if (ok && (img[y][x][0] | img[y][x][3])) {
                snprintf(why, sizeof(why), "pixel (%d,%d) outside the "
                         "mesh was hit", x, y);
                ok = false;
            }
        }
    }
    ok = ok && snap_judge("vk-draw", (const uint8_t (*)[SNAP_SIZE][4])sub,
                          why, sizeof(why));
    tap_report("subpixel-snap", ok, why);
}

/*
 * msaa-alpha-to-coverage-*: a quad over the 4x frame, white with alpha
 * b / 7 in band b (columns 16b to 16b + 15; vk-draw-a2c.frag),
 * alphaToCoverageEnable, resolved over the background: column x's red
 * counts the samples covered, judged by tap.c's a2c_judge()
 */
static void check_a2c(Image img)
{
    static int k[SIZE * SIZE];

    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            double f = (img[y][x][0] - background.c[0]) /
                       (255.0 - background.c[0]);

            k[y * SIZE + x] = (int)lround(f * MS_SAMPLES);
        }
    }
    a2c_judge("vk-draw", "msaa-alpha-to-coverage", k, SIZE, MS_SAMPLES);
}

/*
 * msaa-locations-*: the 4x frame again at custom sample locations
 * (VK_EXT_sample_locations in the pipeline), judged against them;
 * skipped where the device lacks the extension
 */
static void check_locations(Dev *d)
{
    static Image img;
    static const VkSampleLocationEXT locs[MS_SAMPLES] = {
        { 0.0625f, 0.5f }, { 0.6875f, 0.3125f },
        { 0.25f, 0.625f }, { 0.75f, 0.1875f },
    };
    float pos[MS_SAMPLES][2];
    VkExtensionProperties ext[256];
    uint32_t n = 256;
    bool have = false;

    if (vkEnumerateDeviceExtensionProperties(d->d.pdev, NULL, &n, ext) >= 0) {
        for (uint32_t i = 0; i < n; i++) {
            have |= !strcmp(ext[i].extensionName, "VK_EXT_sample_locations");
        }
    }
    for (int s = 0; s < MS_SAMPLES; s++) {
        pos[s][0] = locs[s].x;
        pos[s][1] = locs[s].y;
    }
    if (have) {
        draw_msaa(d, img, NULL, locs, false);
    }
    judge_msaa(img, "msaa-locations", pos,
               have ? NULL : "no VK_EXT_sample_locations", NULL);
}

static void compare(Image img, Image ref, const char *name)
{
    int differ = 0, worst = 0;
    char why[160];

    for (int y = 0; y < SIZE; y++) {
        for (int x = 0; x < SIZE; x++) {
            int d = 0;

            for (int c = 0; c < 4; c++) {
                int e = abs(img[y][x][c] - ref[y][x][c]);

                d = e > d ? e : d;
            }
            differ += d > 3;
            worst = d > worst ? d : worst;
        }
    }
    snprintf(why, sizeof(why), "%d of %d pixels differ by more than 3 "
             "(at most %d)", differ, SIZE * SIZE, worst);
    printf("vk-draw: %s against lavapipe: %s\n", name, why);
    tap_report(name, differ <= SIZE * SIZE / 100, why);
}

/* --- depth bias, stencil, layers ---------------------------------------- */

/*
 * Each of these checks renders ZS_SIZE square frames of its own on the
 * device (flat colours from a push constant, one TAP line each) and reads
 * every pixel back: exact.  Quads are given in pixels (y down) with a
 * depth at x = 0 and one at x = ZS_SIZE.
 */
#define ZS_SIZE     64
#define ZS_LAYERS   3
#define ZS_QUADS    16

typedef uint8_t ZsImage[ZS_SIZE][ZS_SIZE][4];

typedef struct ZsQuad {
    float x0, y0, x1, y1;
    float z0, z1;
    bool back;                  /* wound to face back */
} ZsQuad;

/* A pipeline: which vertex shader, depth bias, depth and stencil state */
typedef struct ZsPipe {
    bool layered;               /* gl_Layer = the instance index */
    bool multiview;             /* a view per layer, x + 16 px a view */
    bool sref;                  /* the shader exports its stencil ref */
    bool bias;
    float bias_const, bias_slope, bias_clamp;
    bool depth_test;
    VkCompareOp depth_op;
    bool stencil;
    VkStencilOpState front, back;
} ZsPipe;

typedef struct Zs {
    Dev *d;
    VkFormat zs_fmt;
    VkImageAspectFlags zs_aspect;
    VkSampleCountFlagBits samples;
    /* multisampled: depth and stencil resolved into resolve (or NONE) */
    VkResolveModeFlagBits z_resolve, s_resolve;
    VkImage resolve;
    VkImageView resolve_view;
    unsigned layers;
    uint32_t view_mask;         /* multiview: a view per layer */
    VkImage colour, depth;
    VkImageView colour_view, depth_view;
    VkBuffer vbuf, out;
    float *verts;
    void *omap;
    unsigned nquads;
    VkPipelineLayout layout;
    VkCommandPool pool;
    VkCommandBuffer cmd;
} Zs;

static VkImageView zs_image(Zs *z, VkFormat fmt, VkImageUsageFlags usage,
                            VkImageAspectFlags aspect,
                            VkSampleCountFlagBits samples, VkImage *img)
{
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = fmt,
        .extent = { ZS_SIZE, ZS_SIZE, 1 },
        .mipLevels = 1,
        .arrayLayers = z->layers,
        .samples = samples,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
    };
    VkDeviceMemory m;
    VkImageView view;

    *img = vku_image_from(&z->d->d, &ici, aspect,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &m, &view);
    return view;
}

/*
 * Images of @samples samples (and, multisampled, a single-sampled depth/
 * stencil image to resolve into), buffers and a command buffer recording
 */
static void zs_begin_ms(Zs *z, Dev *d, VkFormat zs_fmt, unsigned layers,
                        VkSampleCountFlagBits samples)
{
    VkPushConstantRange pc = { VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16 };
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .pushConstantRangeCount = 1,
        .pPushConstantRanges = &pc,
    };
    VkCommandPoolCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .queueFamilyIndex = d->d.family,
    };
    void *vmap;

    memset(z, 0, sizeof(*z));
    z->d = d;
    z->zs_fmt = zs_fmt;
    z->zs_aspect = VK_IMAGE_ASPECT_DEPTH_BIT |
                   (zs_fmt == VK_FORMAT_D32_SFLOAT_S8_UINT ?
                    VK_IMAGE_ASPECT_STENCIL_BIT : 0);
    z->layers = layers;
    z->samples = samples;
    z->vbuf = make_buffer(d, ZS_QUADS * 6 * 3 * sizeof(float),
                          VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vmap);
    z->verts = vmap;
    /* colour; or, multisampled, resolved depth (4 bytes) and stencil */
    z->out = make_buffer(d, sizeof(ZsImage) * layers + ZS_SIZE * ZS_SIZE,
                         VK_BUFFER_USAGE_TRANSFER_DST_BIT, &z->omap);
    memset(z->omap, 0, sizeof(ZsImage) * layers + ZS_SIZE * ZS_SIZE);
    z->colour_view = zs_image(z, COLOR_FMT,
                              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                              VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                              VK_IMAGE_ASPECT_COLOR_BIT, samples,
                              &z->colour);
    z->depth_view = zs_image(z, zs_fmt,
                             VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                             z->zs_aspect, samples, &z->depth);
    if (samples != VK_SAMPLE_COUNT_1_BIT) {
        z->resolve_view = zs_image(z, zs_fmt,
                                   VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                   VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                   z->zs_aspect, VK_SAMPLE_COUNT_1_BIT,
                                   &z->resolve);
    }
    CHECK_VK(vkCreatePipelineLayout(d->d.dev, &plci, NULL, &z->layout));
    CHECK_VK(vkCreateCommandPool(d->d.dev, &cpci, NULL, &z->pool));
    z->cmd = vku_begin(&d->d, z->pool, 0);
}

/* ... single-sampled (opens the device) */
static void zs_begin(Zs *z, Dev *d, VkFormat zs_fmt, unsigned layers)
{
    zs_begin_ms(z, d, zs_fmt, layers, VK_SAMPLE_COUNT_1_BIT);
}

/* Quad @q into the vertex buffer: its first vertex */
static uint32_t zs_quad(Zs *z, const ZsQuad *q)
{
    static const int corner[6][2] = {
        { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 1 }
    };
    uint32_t first = 6 * z->nquads;
    float *v = z->verts + 3 * first;

    if (z->nquads == ZS_QUADS) {
        printf("vk-draw: too many quads\n");
        exit(2);
    }
    z->nquads++;
    for (int i = 0; i < 6; i++) {
        int k = q->back ? 5 - i : i;
        float x = corner[k][0] ? q->x1 : q->x0;
        float y = corner[k][1] ? q->y1 : q->y0;

        v[3 * i] = 2.0f * x / ZS_SIZE - 1;
        v[3 * i + 1] = 2.0f * y / ZS_SIZE - 1;
        v[3 * i + 2] = q->z0 + (q->z1 - q->z0) * x / ZS_SIZE;
    }
    return first;
}

static VkPipeline zs_pipeline(Zs *z, const ZsPipe *p)
{
    VkFormat color_fmt = COLOR_FMT;
    VkPipelineRenderingCreateInfo rci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .viewMask = z->view_mask,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &color_fmt,
        .depthAttachmentFormat = z->zs_fmt,
        .stencilAttachmentFormat =
            z->zs_aspect & VK_IMAGE_ASPECT_STENCIL_BIT ? z->zs_fmt
                                                       : VK_FORMAT_UNDEFINED,
    };
    VkPipelineShaderStageCreateInfo stages[2] = {
        {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_VERTEX_BIT,
            .module = p->layered ?
                vku_module(&z->d->d, vk_draw_layer_vert_spv,
                           sizeof(vk_draw_layer_vert_spv)) :
                p->multiview ?
                vku_module(&z->d->d, vk_draw_view_vert_spv,
                           sizeof(vk_draw_view_vert_spv)) :
                vku_module(&z->d->d, vk_draw_flat_vert_spv,
                           sizeof(vk_draw_flat_vert_spv)),
            .pName = "main",
        }, {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
            .module = p->sref ?
                vku_module(&z->d->d, vk_draw_sref_frag_spv,
                           sizeof(vk_draw_sref_frag_spv)) :
                vku_module(&z->d->d, vk_draw_flat_frag_spv,
                           sizeof(vk_draw_flat_frag_spv)),
            .pName = "main",
        },
    };
    VkVertexInputBindingDescription vb = { .stride = 3 * sizeof(float) };
    VkVertexInputAttributeDescription va = {
        .location = 0, .format = VK_FORMAT_R32G32B32_SFLOAT,
    };
    VkPipelineVertexInputStateCreateInfo vis = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
        .vertexBindingDescriptionCount = 1,
        .pVertexBindingDescriptions = &vb,
        .vertexAttributeDescriptionCount = 1,
        .pVertexAttributeDescriptions = &va,
    };
    VkPipelineInputAssemblyStateCreateInfo ias = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    };
    VkViewport vp = { 0, 0, ZS_SIZE, ZS_SIZE, 0.0f, 1.0f };
    VkRect2D sc = { { 0, 0 }, { ZS_SIZE, ZS_SIZE } };
    VkPipelineViewportStateCreateInfo vps = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .pViewports = &vp,
        .scissorCount = 1,
        .pScissors = &sc,
    };
    /* quads as zs_quad winds them face front (clockwise, y down) */
    VkPipelineRasterizationStateCreateInfo rs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .frontFace = VK_FRONT_FACE_CLOCKWISE,
        .depthBiasEnable = p->bias,
        .depthBiasConstantFactor = p->bias_const,
        .depthBiasSlopeFactor = p->bias_slope,
        .depthBiasClamp = p->bias_clamp,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo ms = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = z->samples,
    };
    VkPipelineDepthStencilStateCreateInfo ds = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = p->depth_test,
        .depthWriteEnable = p->depth_test,
        .depthCompareOp = p->depth_op,
        .stencilTestEnable = p->stencil,
        .front = p->front,
        .back = p->back,
    };
    VkPipelineColorBlendAttachmentState cba = { .colorWriteMask = 0xf };
    VkPipelineColorBlendStateCreateInfo cbs = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &cba,
    };
    VkGraphicsPipelineCreateInfo gpci = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rci,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vis,
        .pInputAssemblyState = &ias,
        .pViewportState = &vps,
        .pRasterizationState = &rs,
        .pMultisampleState = &ms,
        .pDepthStencilState = &ds,
        .pColorBlendState = &cbs,
        .layout = z->layout,
    };
    VkPipeline pipe;

    CHECK_VK(vkCreateGraphicsPipelines(z->d->d.dev, VK_NULL_HANDLE, 1,
                                       &gpci, NULL, &pipe));
    return pipe;
}

static void zs_barrier(Zs *z, VkImage img, VkImageAspectFlags aspect,
                       VkImageLayout from, VkImageLayout to,
                       VkAccessFlags src_access, VkAccessFlags dst_access,
                       VkPipelineStageFlags src, VkPipelineStageFlags dst)
{
    vku_layers_barrier(z->cmd, img, aspect, z->layers, from, to, src_access,
                       dst_access, src, dst);
}

/*
 * Begin rendering into every layer: the first time clearing colour to
 * black, depth to 1.0 and stencil to 0, later loading what the last
 * pass stored
 */
static void zs_pass(Zs *z, bool first)
{
    VkRenderingAttachmentInfo ca = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = z->colour_view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = first ? VK_ATTACHMENT_LOAD_OP_CLEAR
                        : VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.color.float32 = { 0, 0, 0, 1 },
    };
    VkRenderingAttachmentInfo da = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = z->depth_view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        .loadOp = first ? VK_ATTACHMENT_LOAD_OP_CLEAR
                        : VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.depthStencil = { 1.0f, 0 },
        .resolveMode = z->z_resolve,
        .resolveImageView = z->resolve_view,
        .resolveImageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    VkRenderingAttachmentInfo sa = da;
    VkRenderingInfo ri = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = { { 0, 0 }, { ZS_SIZE, ZS_SIZE } },
        .layerCount = z->view_mask ? 0 : z->layers,
        .viewMask = z->view_mask,
        .colorAttachmentCount = 1,
        .pColorAttachments = &ca,
        .pDepthAttachment = &da,
        .pStencilAttachment =
            z->zs_aspect & VK_IMAGE_ASPECT_STENCIL_BIT ? &sa : NULL,
    };
    VkDeviceSize zero = 0;

    sa.resolveMode = z->s_resolve;

    if (first) {
        zs_barrier(z, z->colour, VK_IMAGE_ASPECT_COLOR_BIT,
                   VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
                   VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                   VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                   VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT);
        zs_barrier(z, z->depth, z->zs_aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, 0,
                   VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                   VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                   VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT);
        if (z->resolve) {
            zs_barrier(z, z->resolve, z->zs_aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                       VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, 0,
                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                       VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                       VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT);
        }
    } else {
        /* the last pass's stores before this one's loads */
        VkMemoryBarrier mb = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
            .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                             VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
            .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                             VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
        };

        vkCmdPipelineBarrier(z->cmd,
                             VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                             VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                             VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                             VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT, 0,
                             1, &mb, 0, NULL, 0, NULL);
    }
    vkCmdBeginRendering(z->cmd, &ri);
    vkCmdBindVertexBuffers(z->cmd, 0, 1, &z->vbuf, &zero);
}

/* Draw quad @q with pipeline @pipe in colour @c, @n instances from @inst */
static void zs_draw(Zs *z, VkPipeline pipe, const ZsQuad *q, const Rgba *c,
                    uint32_t n, uint32_t inst)
{
    float col[4];

    for (int i = 0; i < 4; i++) {
        col[i] = c->c[i] / 255.0f;
    }
    vkCmdBindPipeline(z->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdPushConstants(z->cmd, z->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof(col), col);
    vkCmdDraw(z->cmd, 6, n, zs_quad(z, q), inst);
}

/* End the pass, copy every layer out, run it all: the images of layers */
static const uint8_t *zs_end(Zs *z)
{
    VkBufferImageCopy copy = {
        .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, z->layers },
        .imageExtent = { ZS_SIZE, ZS_SIZE, 1 },
    };

    vkCmdEndRendering(z->cmd);
    zs_barrier(z, z->colour, VK_IMAGE_ASPECT_COLOR_BIT,
               VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
               VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
               VK_ACCESS_TRANSFER_READ_BIT,
               VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyImageToBuffer(z->cmd, z->colour,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, z->out, 1,
                           &copy);
    CHECK_VK(vku_submit_wait(&z->d->d, VK_NULL_HANDLE, z->cmd, TIMEOUT_NS));
    return z->omap;
}

/*
 * End the multisampled pass, copy the resolved depth (floats) and stencil
 * (bytes after them) out, run it all
 */
static const uint8_t *zs_end_resolve(Zs *z)
{
    VkBufferImageCopy copy[2] = {
        {
            .imageSubresource = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1 },
            .imageExtent = { ZS_SIZE, ZS_SIZE, 1 },
        }, {
            .bufferOffset = 4 * ZS_SIZE * ZS_SIZE,
            .imageSubresource = { VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0, 1 },
            .imageExtent = { ZS_SIZE, ZS_SIZE, 1 },
        },
    };

    vkCmdEndRendering(z->cmd);
    zs_barrier(z, z->resolve, z->zs_aspect,
               VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
               VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
               VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
               VK_ACCESS_TRANSFER_READ_BIT,
               VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
               VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
               VK_PIPELINE_STAGE_TRANSFER_BIT);
    vkCmdCopyImageToBuffer(z->cmd, z->resolve,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, z->out, 2,
                           copy);
    CHECK_VK(vku_submit_wait(&z->d->d, VK_NULL_HANDLE, z->cmd, TIMEOUT_NS));
    return z->omap;
}

/* Compare layer @layer's pixels with @want(x, y, layer): the TAP line */
static bool zs_compare(const uint8_t *img, unsigned layer,
                       void (*want)(int x, int y, unsigned layer, Rgba *c),
                       char *why, size_t len)
{
    const uint8_t *base = img + layer * sizeof(ZsImage);

    for (int y = 0; y < ZS_SIZE; y++) {
        for (int x = 0; x < ZS_SIZE; x++) {
            const uint8_t *px = base + 4 * (y * ZS_SIZE + x);
            Rgba w;

            want(x, y, layer, &w);
            for (int c = 0; c < 4; c++) {
                if (px[c] != w.c[c]) {
                    snprintf(why, len, "layer %u pixel (%d,%d) is "
                             "%02x%02x%02x%02x, expected %02x%02x%02x%02x",
                             layer, x, y, px[0], px[1], px[2], px[3],
                             w.c[0], w.c[1], w.c[2], w.c[3]);
                    return false;
                }
            }
        }
    }
    return true;
}

static const Rgba zs_red = { { 255, 0, 0, 255 } };
static const Rgba zs_green = { { 0, 255, 0, 255 } };
static const Rgba zs_blue = { { 0, 0, 255, 255 } };
static const Rgba zs_white = { { 255, 255, 255, 255 } };
static const Rgba zs_yellow = { { 255, 255, 0, 255 } };

static void want_green(int x, int y, unsigned layer, Rgba *c)
{
    *c = zs_green;
}

/*
 * Depth bias (D32_SFLOAT, Less).  Rows 0-31: a red plane sloping from
 * 0.25 to 0.75 across the frame (1/128 a pixel), green 1/256 behind it
 * with slope factor -1 (offset -1/128: in front), blue 1/64 behind with
 * the same bias (behind the green: hidden).  Rows 32-63: red at 0.5,
 * green at 0.5 with constant factor -2 (two resolvable steps in front),
 * blue 1/100000 behind with constant -1000 (far enough in front) but a
 * clamp of -1/1000000 (not enough): green everywhere.
 */
static void check_depth_bias(Dev *d)
{
    ZsPipe plain = { .depth_test = true, .depth_op = VK_COMPARE_OP_LESS };
    ZsPipe slope = plain, units = plain, clamped = plain;
    VkPipeline p_plain, p_slope, p_units, p_clamp;
    const float deep = 1.0f / 100000;
    char why[160] = "";
    Zs z;
    bool ok;

    if (!d->bias_clamp) {
        tap_report("depth-bias", false, "no depthBiasClamp");
        return;
    }
    slope.bias = units.bias = clamped.bias = true;
    slope.bias_slope = -1;
    units.bias_const = -2;
    clamped.bias_const = -1000;
    clamped.bias_clamp = -1.0f / 1000000;
    open_device(d, false);
    zs_begin(&z, d, VK_FORMAT_D32_SFLOAT, 1);
    p_plain = zs_pipeline(&z, &plain);
    p_slope = zs_pipeline(&z, &slope);
    p_units = zs_pipeline(&z, &units);
    p_clamp = zs_pipeline(&z, &clamped);
    zs_pass(&z, true);
    zs_draw(&z, p_plain, &(ZsQuad) { 0, 0, 64, 32, 0.25f, 0.75f },
            &zs_red, 1, 0);
    zs_draw(&z, p_slope, &(ZsQuad) { 0, 0, 64, 32, 0.25f + 1.0f / 256,
                                     0.75f + 1.0f / 256 }, &zs_green, 1, 0);
    zs_draw(&z, p_slope, &(ZsQuad) { 0, 0, 64, 32, 0.25f + 1.0f / 64,
                                     0.75f + 1.0f / 64 }, &zs_blue, 1, 0);
    zs_draw(&z, p_plain, &(ZsQuad) { 0, 32, 64, 64, 0.5f, 0.5f },
            &zs_red, 1, 0);
    zs_draw(&z, p_units, &(ZsQuad) { 0, 32, 64, 64, 0.5f, 0.5f },
            &zs_green, 1, 0);
    zs_draw(&z, p_clamp, &(ZsQuad) { 0, 32, 64, 64, 0.5f + deep,
                                     0.5f + deep }, &zs_blue, 1, 0);
    ok = zs_compare(zs_end(&z), 0, want_green, why, sizeof(why));
    tap_report("depth-bias", ok, why);
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/* Stencil: squares A [8, 40) and B [24, 56) */
static bool zs_in(int x, int y, int lo, int hi)
{
    return x >= lo && x < hi && y >= lo && y < hi;
}

static void want_stencil(int x, int y, unsigned layer, Rgba *c)
{
    bool a = zs_in(x, y, 8, 40), b = zs_in(x, y, 24, 56);
    static const Rgba black = { { 0, 0, 0, 255 } };

    *c = a && b ? zs_yellow : a || b ? zs_white : black;
}

/*
 * The stencil test (D32_SFLOAT_S8_UINT, no depth test): A with Always,
 * Replace, reference 1; B with Always, Increment and clamp (A and B: 2,
 * B alone: 1); blue where Equal 2; white where Not equal 0 under the
 * compare mask 1 (A or B alone); then a back-facing quad over everything
 * whose front state is Never and back state Equal 2: yellow where both
 */
static void check_stencil(Dev *d)
{
    VkStencilOpState keep = {
        .failOp = VK_STENCIL_OP_KEEP, .passOp = VK_STENCIL_OP_KEEP,
        .depthFailOp = VK_STENCIL_OP_KEEP, .compareOp = VK_COMPARE_OP_ALWAYS,
        .compareMask = 0xff, .writeMask = 0xff,
    };
    ZsPipe pa = { .stencil = true }, pb, pc, pd, pe;
    VkPipeline a, b, c, dd, e;
    char why[160] = "";
    Zs z;
    bool ok;

    pa.front = pa.back = keep;
    pa.front.passOp = pa.back.passOp = VK_STENCIL_OP_REPLACE;
    pa.front.reference = pa.back.reference = 1;
    pb = pa;
    pb.front.passOp = pb.back.passOp = VK_STENCIL_OP_INCREMENT_AND_CLAMP;
    pc = pa;
    pc.front = pc.back = keep;
    pc.front.compareOp = pc.back.compareOp = VK_COMPARE_OP_EQUAL;
    pc.front.reference = pc.back.reference = 2;
    pd = pc;
    pd.front.compareOp = pd.back.compareOp = VK_COMPARE_OP_NOT_EQUAL;
    pd.front.reference = pd.back.reference = 0;
    pd.front.compareMask = pd.back.compareMask = 1;
    pe = pc;
    pe.front.compareOp = VK_COMPARE_OP_NEVER;
    open_device(d, false);
    zs_begin(&z, d, VK_FORMAT_D32_SFLOAT_S8_UINT, 1);
    a = zs_pipeline(&z, &pa);
    b = zs_pipeline(&z, &pb);
    c = zs_pipeline(&z, &pc);
    dd = zs_pipeline(&z, &pd);
    e = zs_pipeline(&z, &pe);
    zs_pass(&z, true);
    zs_draw(&z, a, &(ZsQuad) { 8, 8, 40, 40, 0.5f, 0.5f }, &zs_red, 1, 0);
    zs_draw(&z, b, &(ZsQuad) { 24, 24, 56, 56, 0.5f, 0.5f }, &zs_green, 1,
            0);
    zs_draw(&z, c, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f }, &zs_blue, 1, 0);
    zs_draw(&z, dd, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f }, &zs_white, 1,
            0);
    zs_draw(&z, e, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f, true },
            &zs_yellow, 1, 0);
    ok = zs_compare(zs_end(&z), 0, want_stencil, why, sizeof(why));
    tap_report("stencil-test", ok, why);
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/* Layer l's blue channel: l / 5 (vk-draw-flat.frag) */
static void want_layers(int x, int y, unsigned layer, Rgba *c)
{
    static const int blue[ZS_LAYERS] = { 0, 51, 102 };

    *c = layer == 0 && x < 32 ? zs_red : zs_green;
    c->c[2] = blue[layer];
}

/*
 * Layered rendering into a 3-layer 2D array image (colour and
 * D32_SFLOAT), the vertex shader writing gl_Layer (the instance index).
 * First pass: red left halves at depth 0.25 into layer 0 and 0.75 into
 * layer 1, stored; second pass, loading colour and depth: green at 0.5
 * over every layer (three instances).  Layer 0: red left, green right;
 * layers 1 and 2: green; each layer's blue channel its index / 5.
 */
static void check_layers(Dev *d)
{
    ZsPipe lp = { .layered = true, .depth_test = true,
                  .depth_op = VK_COMPARE_OP_LESS };
    VkPipeline p;
    char why[160] = "";
    const uint8_t *img;
    bool ok = true;
    Zs z;

    if (!d->output_layer) {
        tap_report("layered-render", false, "no shaderOutputLayer");
        return;
    }
    open_device(d, false);
    zs_begin(&z, d, VK_FORMAT_D32_SFLOAT, ZS_LAYERS);
    p = zs_pipeline(&z, &lp);
    zs_pass(&z, true);
    zs_draw(&z, p, &(ZsQuad) { 0, 0, 32, 64, 0.25f, 0.25f }, &zs_red, 1, 0);
    zs_draw(&z, p, &(ZsQuad) { 0, 0, 32, 64, 0.75f, 0.75f }, &zs_red, 1, 1);
    vkCmdEndRendering(z.cmd);
    zs_pass(&z, false);
    zs_draw(&z, p, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f }, &zs_green,
            ZS_LAYERS, 0);
    img = zs_end(&z);
    for (unsigned l = 0; l < ZS_LAYERS && ok; l++) {
        ok = zs_compare(img, l, want_layers, why, sizeof(why));
    }
    tap_report("layered-render", ok, why);
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/* View v: green over [16 v, 16 v + 16), blue channel v / 5; else black */
static void want_views(int x, int y, unsigned layer, Rgba *c)
{
    static const int blue[ZS_LAYERS] = { 0, 51, 102 };

    *c = (Rgba) { { 0, 0, 0, 255 } };
    if (x >= 16 * (int)layer && x < 16 * (int)layer + 16) {
        *c = zs_green;
        c->c[2] = blue[layer];
    }
}

/*
 * Multiview (Honeykrisp renders each view into its layer): a render pass
 * of view mask 0b111 over a 3-layer 2D array image, one draw of a green
 * quad over [0, 16) x [0, 64) whose vertex shader moves it 16 pixels
 * right a view (gl_ViewIndex): each layer holds its view's quad
 */
static void check_multiview(Dev *d)
{
    ZsPipe vp = { .multiview = true };
    VkPipeline p;
    char why[160] = "";
    const uint8_t *img;
    bool ok = true;
    Zs z;

    if (!d->multiview) {
        tap_report("multiview", false, "no multiview");
        return;
    }
    open_device(d, false);
    zs_begin(&z, d, VK_FORMAT_D32_SFLOAT, ZS_LAYERS);
    z.view_mask = (1u << ZS_LAYERS) - 1;
    p = zs_pipeline(&z, &vp);
    zs_pass(&z, true);
    zs_draw(&z, p, &(ZsQuad) { 0, 0, 16, 64, 0.5f, 0.5f }, &zs_green, 1, 0);
    img = zs_end(&z);
    for (unsigned l = 0; l < ZS_LAYERS && ok; l++) {
        ok = zs_compare(img, l, want_views, why, sizeof(why));
    }
    tap_report("multiview", ok, why);
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

static void want_sref(int x, int y, unsigned layer, Rgba *c)
{
    *c = x < 32 ? zs_green : zs_blue;
}

/*
 * The shader's stencil reference (VK_EXT_shader_stencil_export:
 * gl_FragStencilRefARB 5 left of x = 32, 7 right of it) replaces the
 * pipeline's (1): red everywhere with Always, Replace; then green where
 * Equal 5, blue where Equal 7
 */
static void check_stencil_export(Dev *d)
{
    VkStencilOpState keep = {
        .failOp = VK_STENCIL_OP_KEEP, .passOp = VK_STENCIL_OP_KEEP,
        .depthFailOp = VK_STENCIL_OP_KEEP, .compareOp = VK_COMPARE_OP_EQUAL,
        .compareMask = 0xff, .writeMask = 0xff, .reference = 5,
    };
    ZsPipe ps = { .stencil = true, .sref = true }, p5, p7;
    VkPipeline s, e5, e7;
    char why[160] = "";
    Zs z;
    bool ok;

    if (!d->stencil_export) {
        tap_report("stencil-export", false, "no VK_EXT_shader_stencil_export");
        return;
    }
    ps.front = ps.back = keep;
    ps.front.compareOp = ps.back.compareOp = VK_COMPARE_OP_ALWAYS;
    ps.front.passOp = ps.back.passOp = VK_STENCIL_OP_REPLACE;
    ps.front.reference = ps.back.reference = 1;
    p5 = (ZsPipe) { .stencil = true, .front = keep, .back = keep };
    p7 = p5;
    p7.front.reference = p7.back.reference = 7;
    open_device(d, false);
    zs_begin(&z, d, VK_FORMAT_D32_SFLOAT_S8_UINT, 1);
    s = zs_pipeline(&z, &ps);
    e5 = zs_pipeline(&z, &p5);
    e7 = zs_pipeline(&z, &p7);
    zs_pass(&z, true);
    zs_draw(&z, s, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f }, &zs_red, 1, 0);
    zs_draw(&z, e5, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f }, &zs_green, 1,
            0);
    zs_draw(&z, e7, &(ZsQuad) { 0, 0, 64, 64, 0.5f, 0.5f }, &zs_blue, 1, 0);
    ok = zs_compare(zs_end(&z), 0, want_sref, why, sizeof(why));
    tap_report("stencil-export", ok, why);
    vkDeviceWaitIdle(d->d.dev);
    vkDestroyDevice(d->d.dev, NULL);
}

/*
 * msaa-zs-resolve-<depth mode>-<stencil mode>: a 4x D32_SFLOAT_S8_UINT
 * attachment resolved by the render pass (VK_KHR_depth_stencil_resolve,
 * core in 1.2) in the modes the device supports of sample zero, min and
 * max (depth and stencil in different ones where it resolves them
 * independently).  A quad over the frame writes depth sloping from 0.25
 * at x = 0 to 0.75 at x = 64 (each sample its own) and stencil 1, a
 * second from x = 20.5 to 44.5 stencil 2 (columns 20 and 44 half in):
 * every pixel is judged against the standard 4x sample locations, the
 * stencil exactly, the depth within 1/2^17 (the samples of a pixel lie
 * 1/512 apart or more).
 */
static const VkResolveModeFlagBits zs_modes[3][2] = {
    { VK_RESOLVE_MODE_SAMPLE_ZERO_BIT, VK_RESOLVE_MODE_SAMPLE_ZERO_BIT },
    { VK_RESOLVE_MODE_MIN_BIT, VK_RESOLVE_MODE_MAX_BIT },
    { VK_RESOLVE_MODE_MAX_BIT, VK_RESOLVE_MODE_MIN_BIT },
};

static const char *zs_mode_name(VkResolveModeFlagBits m)
{
    return m == VK_RESOLVE_MODE_SAMPLE_ZERO_BIT ? "zero" :
           m == VK_RESOLVE_MODE_MIN_BIT ? "min" : "max";
}

/* Of @n values, the one @mode resolves to (sample zero: the first) */
static float zs_pick(VkResolveModeFlagBits mode, const float *v, int n)
{
    float r = v[0];

    for (int i = 1; i < n; i++) {
        if ((mode == VK_RESOLVE_MODE_MIN_BIT && v[i] < r) ||
            (mode == VK_RESOLVE_MODE_MAX_BIT && v[i] > r)) {
            r = v[i];
        }
    }
    return r;
}

static bool zs_resolve_judge(const uint8_t *out, VkResolveModeFlagBits zm,
                             VkResolveModeFlagBits sm, char *why,
                             size_t len)
{
    static const float pos[MS_SAMPLES][2] = {
        { 0.375f, 0.125f }, { 0.875f, 0.375f },
        { 0.125f, 0.625f }, { 0.625f, 0.875f },
    };
    const uint8_t *stencil = out + 4 * ZS_SIZE * ZS_SIZE;

    for (int y = 0; y < ZS_SIZE; y++) {
        for (int x = 0; x < ZS_SIZE; x++) {
            float z[MS_SAMPLES], st[MS_SAMPLES], wz, ws, gz;
            int gs = stencil[y * ZS_SIZE + x];

            for (int s = 0; s < MS_SAMPLES; s++) {
                float sx = x + pos[s][0];

                z[s] = 0.25f + sx / 128;
                st[s] = sx >= 20.5f && sx < 44.5f ? 2 : 1;
            }
            wz = zs_pick(zm, z, MS_SAMPLES);
            ws = zs_pick(sm, st, MS_SAMPLES);
            memcpy(&gz, out + 4 * (y * ZS_SIZE + x), 4);
            if (!(fabsf(gz - wz) <= 1.0f / (1 << 17)) || gs != ws) {
                snprintf(why, len, "pixel (%d,%d): depth %.7f stencil %d, "
                         "expected %.7f and %d", x, y, gz, gs, wz, (int)ws);
                return false;
            }
        }
    }
    return true;
}

static void check_zs_resolve(Dev *d)
{
    VkPhysicalDeviceDepthStencilResolveProperties rp = {
        .sType =
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_STENCIL_RESOLVE_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
        .pNext = &rp,
    };
    VkStencilOpState one = {
        .failOp = VK_STENCIL_OP_KEEP, .passOp = VK_STENCIL_OP_REPLACE,
        .depthFailOp = VK_STENCIL_OP_KEEP, .compareOp = VK_COMPARE_OP_ALWAYS,
        .compareMask = 0xff, .writeMask = 0xff, .reference = 1,
    };
    ZsPipe pa = {
        .depth_test = true, .depth_op = VK_COMPARE_OP_ALWAYS,
        .stencil = true,
    };
    ZsPipe pb = { .stencil = true };

    pa.front = pa.back = one;
    pb.front = pb.back = one;
    pb.front.reference = pb.back.reference = 2;
    vkGetPhysicalDeviceProperties2(d->d.pdev, &p2);
    for (int i = 0; i < 3; i++) {
        VkResolveModeFlagBits zm = zs_modes[i][0];
        VkResolveModeFlagBits sm = rp.independentResolve ? zs_modes[i][1]
                                                         : zm;
        char name[64], why[160] = "";
        VkPipeline a, b;
        Zs z;

        snprintf(name, sizeof(name), "msaa-zs-resolve-%s-%s",
                 zs_mode_name(zm), zs_mode_name(sm));
        if (!(rp.supportedDepthResolveModes & zm) ||
            !(rp.supportedStencilResolveModes & sm)) {
            tap_skip(name, "resolve mode not supported");
            continue;
        }
        open_device(d, false);
        zs_begin_ms(&z, d, VK_FORMAT_D32_SFLOAT_S8_UINT, 1,
                    VK_SAMPLE_COUNT_4_BIT);
        z.z_resolve = zm;
        z.s_resolve = sm;
        a = zs_pipeline(&z, &pa);
        b = zs_pipeline(&z, &pb);
        zs_pass(&z, true);
        zs_draw(&z, a, &(ZsQuad) { 0, 0, 64, 64, 0.25f, 0.75f }, &zs_red, 1,
                0);
        zs_draw(&z, b, &(ZsQuad) { 20.5f, 0, 44.5f, 64, 0.5f, 0.5f },
                &zs_green, 1, 0);
        tap_report(name, zs_resolve_judge(zs_end_resolve(&z), zm, sm, why,
                                          sizeof(why)), why);
        vkDeviceWaitIdle(d->d.dev);
        vkDestroyDevice(d->d.dev, NULL);
    }
}

static void check_zs(Dev *d)
{
    check_depth_bias(d);
    check_stencil(d);
    check_stencil_export(d);
    check_layers(d);
    check_multiview(d);
    check_zs_resolve(d);
}

/*
 * The compressed formats the model does not decode: whether the driver
 * offers them (docs/devel/agx-firmware-model.rst says why it does not)
 */
static void print_formats(Dev *d)
{
    static const struct {
        VkFormat f;
        const char *name;
    } fmt[] = {
        { VK_FORMAT_ASTC_4x4_UNORM_BLOCK, "ASTC 4x4 LDR" },
        { VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK, "ASTC 4x4 HDR" },
        { VK_FORMAT_PVRTC1_4BPP_UNORM_BLOCK_IMG, "PVRTC1 4bpp" },
    };

    printf("vk-draw: VK_EXT_texture_compression_astc_hdr %s, "
           "VK_IMG_format_pvrtc %s\n",
           has_extension(d->d.pdev, "VK_EXT_texture_compression_astc_hdr") ?
           "offered" : "not offered",
           has_extension(d->d.pdev, "VK_IMG_format_pvrtc") ?
           "offered" : "not offered");
    for (unsigned i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
        VkFormatProperties fp;

        vkGetPhysicalDeviceFormatProperties(d->d.pdev, fmt[i].f, &fp);
        printf("vk-draw: %s: optimal tiling features 0x%x\n", fmt[i].name,
               fp.optimalTilingFeatures);
    }
}

int main(int argc, char **argv)
{
    static Image img, ref, ms_img, snap_img, a2c_img;
    VkPhysicalDeviceProperties props;
    uint64_t passed = 0;
    VkDriverId want = VK_DRIVER_ID_MESA_HONEYKRISP;
    VkInstance inst;
    Dev d = { 0 }, lvp = { 0 };
    bool host = false;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc &&
            !strcmp(argv[i + 1], "lavapipe")) {
            want = VK_DRIVER_ID_MESA_LLVMPIPE;
            i++;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc &&
                   !strcmp(argv[i + 1], "honeykrisp")) {
            i++;
        } else if (!strcmp(argv[i], "--host-checks")) {
            host = true;
        } else {
            printf("usage: vk-draw [--device honeykrisp|lavapipe] "
                   "[--host-checks]\n");
            return 2;
        }
    }
    host = host && want != VK_DRIVER_ID_MESA_LLVMPIPE;
    setvbuf(stdout, NULL, _IOLBF, 0);
    vku_prog = "vk-draw";
    inst = vku_instance("vk-draw", VK_API_VERSION_1_3);
    if (!find_device(inst, want, &d)) {
        printf("vk-draw: no device of that driver\n");
        return 2;
    }
    printf("vk-draw: %s\n", d.name);
    print_formats(&d);
    draw(&d, img, FRAME_SCENE);
    check_frame(img);
    check_zs(&d);
    draw_msaa(&d, ms_img, &passed, NULL, false);
    vkGetPhysicalDeviceProperties(d.d.pdev, &props);
    check_msaa(ms_img, props.limits.standardSampleLocations &&
                       (props.limits.framebufferColorSampleCounts &
                        VK_SAMPLE_COUNT_4_BIT), passed);
    check_locations(&d);
    draw(&d, snap_img, FRAME_SNAP);
    check_snap(snap_img);
    draw_msaa(&d, a2c_img, NULL, NULL, true);
    check_a2c(a2c_img);
    if (want != VK_DRIVER_ID_MESA_LLVMPIPE &&
        find_device(inst, VK_DRIVER_ID_MESA_LLVMPIPE, &lvp)) {
        draw(&lvp, ref, FRAME_SCENE);
        compare(img, ref, "matches-lavapipe");
        draw_msaa(&lvp, ref, NULL, NULL, false);
        compare(ms_img, ref, "msaa-matches-lavapipe");
    }
    host_request(host, "qom-save /machine/gpu-asc vdm-partials partials");
    draw(&d, img, FRAME_MANY);
    check_many(img);
    /* On the GPU the frame outgrew its first buffer: partial renders */
    host_request(host, "qom-delta-min /machine/gpu-asc vdm-partials "
                 "partials 1");
    printf("1..%d\nvk-draw: %d of %d checks passed\n", tap_checks,
           tap_checks - tap_failed, tap_checks);
    vkDestroyInstance(inst, NULL);
    return tap_failed ? 1 : 0;
}
